import { expect } from 'chai';
import { commonPasswordList } from '../../lib/sign-in-experience/common-passwords.ts';
import { passwordProblems, type PasswordOwner } from '../../lib/sign-in-experience/password-policy.ts';
import { DEFAULT_SIGN_IN_EXPERIENCE, type PasswordPolicy } from '../../lib/sign-in-experience/schema.ts';

const common = commonPasswordList();
/** Every rule off but the one a test turns on. */
const LENIENT: PasswordPolicy = {
  length: { min: 1, max: 256 },
  characterTypes: { min: 1 },
  rejects: { pwned: false, commonPasswords: false, repetitionAndSequence: false, userInfo: false, words: [] },
};

function policy(changes: {
  length?: Partial<PasswordPolicy['length']>;
  characterTypes?: PasswordPolicy['characterTypes'];
  rejects?: Partial<PasswordPolicy['rejects']>;
}): PasswordPolicy {
  return {
    length: { ...LENIENT.length, ...changes.length },
    characterTypes: changes.characterTypes ?? LENIENT.characterTypes,
    rejects: { ...LENIENT.rejects, ...changes.rejects },
  };
}

const codes = (rules: PasswordPolicy, password: string, owner?: PasswordOwner) =>
  passwordProblems(rules, password, owner, common).map((problem) => problem.code);

describe('password policy', () => {
  it('passes a good password under the default policy with no problem', () => {
    const owner = {
      username: 'alice',
      primaryEmail: 'alice@example.com',
      primaryPhone: '15551234567',
      name: 'Alice Liddell',
    };
    expect(
      passwordProblems(DEFAULT_SIGN_IN_EXPERIENCE.passwordPolicy, 'violet kettle drum', owner, common),
    ).to.deep.equal([]);
  });

  describe('length', () => {
    it('refuses a password shorter than the minimum, naming it', () => {
      expect(passwordProblems(policy({ length: { min: 10 } }), 'ninechars', undefined, common)).to.deep.equal([
        {
          code: 'password_rejected.too_short',
          message: 'must be at least 10 characters long',
          interpolation: { min: 10 },
        },
      ]);
      expect(codes(policy({ length: { min: 10 } }), 'tencharsxx')).to.deep.equal([]);
    });

    it('refuses a password longer than the maximum, naming it', () => {
      expect(passwordProblems(policy({ length: { max: 12 } }), 'thirteen char', undefined, common)).to.deep.equal([
        {
          code: 'password_rejected.too_long',
          message: 'must be at most 12 characters long',
          interpolation: { max: 12 },
        },
      ]);
      expect(codes(policy({ length: { max: 12 } }), 'twelve chars')).to.deep.equal([]);
    });

    it('counts characters, not UTF-16 units', () => {
      expect(codes(policy({ length: { min: 4, max: 4 } }), '😀😀😀😀')).to.deep.equal([]);
      expect(codes(policy({ length: { min: 5 } }), '😀😀😀😀')).to.deep.equal(['password_rejected.too_short']);
    });
  });

  describe('character types', () => {
    const rules = policy({ characterTypes: { min: 3 } });

    it('counts lowercase, uppercase, digits and symbols, and names the minimum', () => {
      expect(passwordProblems(rules, 'lowerUPPER', undefined, common)).to.deep.equal([
        {
          code: 'password_rejected.character_types',
          interpolation: { min: 3 },
          message: 'must mix at least 3 of: lowercase letters, uppercase letters, digits, symbols',
        },
      ]);
      expect(codes(rules, 'lowerUPPER7')).to.deep.equal([]);
      expect(codes(rules, 'lower 7!')).to.deep.equal([]);
      expect(codes(policy({ characterTypes: { min: 4 } }), 'aA1 ')).to.deep.equal([]);
    });

    it('takes letters beyond ASCII by their case, and uncased scripts as symbols', () => {
      expect(codes(policy({ characterTypes: { min: 2 } }), 'ÉCOLEété')).to.deep.equal([]);
      expect(codes(policy({ characterTypes: { min: 2 } }), '密码password')).to.deep.equal([]);
    });

    it('refuses control characters', () => {
      expect(codes(LENIENT, 'tab\there')).to.deep.equal(['password_rejected.unsupported_characters']);
      expect(codes(LENIENT, 'nul\u0000')).to.deep.equal(['password_rejected.unsupported_characters']);
    });
  });

  describe('common passwords', () => {
    const rules = policy({ rejects: { commonPasswords: true } });

    it('refuses passwords of the list in any case, and nothing else', () => {
      for (const password of ['password', 'Password1', 'qwertyuiop', 'iloveyou', 'TRUSTNO1']) {
        expect(codes(rules, password), password).to.deep.equal(['password_rejected.common']);
      }
      expect(codes(rules, 'violet kettle drum')).to.deep.equal([]);
      expect(codes(policy({}), 'password')).to.deep.equal([]);
    });
  });

  describe('repetition and sequences', () => {
    const rules = policy({ rejects: { repetitionAndSequence: true } });

    it('refuses a character repeated 4 times in a row, in any case', () => {
      for (const password of ['aaaa', 'xyz-AaAa-q', '0000']) {
        expect(codes(rules, password), password).to.deep.equal(['password_rejected.restricted.repetition']);
      }
      expect(codes(rules, 'aaa-bbb-ccc')).to.deep.equal([]);
    });

    it('refuses runs of 4 in the alphabet, the digits or a keyboard row, either way', () => {
      for (const password of ['1234', 'note-abcd', 'DCBA!', '7890', 'qwer', 'lkjh', 'x9876x']) {
        expect(codes(rules, password), password).to.deep.equal(['password_rejected.restricted.sequence']);
      }
      expect(codes(rules, '123-abc-qwe')).to.deep.equal([]);
    });

    it('reports both when both occur, and neither when the rule is off', () => {
      expect(codes(rules, 'aaaa1234')).to.deep.equal([
        'password_rejected.restricted.repetition',
        'password_rejected.restricted.sequence',
      ]);
      expect(codes(LENIENT, 'aaaa1234')).to.deep.equal([]);
    });
  });

  describe("the user's own identifiers", () => {
    const rules = policy({ rejects: { userInfo: true } });
    const owner = {
      username: 'Bob_The_Builder',
      primaryEmail: 'r.jones@example.com',
      primaryPhone: '15551234567',
      name: 'Robert  Smith',
    };

    it('refuses a password containing the username, the email local part, the phone number or the name', () => {
      const cases: Array<[string, string[]]> = [
        ['my-bob_the_builder-pw', ['username']],
        ['hi r.jones!', ['email']],
        ['call 15551234567', ['phone']],
        ['robertsmith', ['name']],
        ['i am robert', ['name']],
        ['SMITHY', ['name']],
      ];
      for (const [password, fields] of cases) {
        expect(passwordProblems(rules, password, owner, common), password).to.deep.equal([
          {
            code: 'password_rejected.restricted.user_info',
            interpolation: { fields },
            message: `must not contain your ${fields.join(', ')}`,
          },
        ]);
      }
    });

    it('lists every identifier found, ignores parts shorter than 3 characters, and needs the user to be known', () => {
      const [problem] = passwordProblems(rules, 'bob_the_builder r.jones smith', owner, common);
      expect(problem?.interpolation).to.deep.equal({ fields: ['username', 'email', 'name'] });
      expect(codes(rules, 'all aboard', { name: 'Al Bo' })).to.deep.equal([]);
      expect(codes(rules, 'bob_the_builder')).to.deep.equal([]);
      expect(codes(policy({}), 'bob_the_builder', owner)).to.deep.equal([]);
      expect(
        codes(rules, 'anything at all', { username: null, primaryEmail: null, primaryPhone: null, name: null }),
      ).to.deep.equal([]);
    });
  });

  describe('custom words', () => {
    it('refuses a password containing any of the words, in any case, naming them', () => {
      const rules = policy({ rejects: { words: ['acme', 'Rocket'] } });
      expect(passwordProblems(rules, 'ACME rockets', undefined, common)).to.deep.equal([
        {
          code: 'password_rejected.restricted.words',
          interpolation: { words: ['acme', 'Rocket'] },
          message: 'must not contain the words acme, Rocket',
        },
      ]);
      expect(codes(rules, 'my acme pass')).to.deep.equal(['password_rejected.restricted.words']);
      expect(codes(rules, 'violet kettle')).to.deep.equal([]);
    });
  });

  it('lists every failed rule at once', () => {
    const rules: PasswordPolicy = {
      length: { min: 12, max: 64 },
      characterTypes: { min: 2 },
      rejects: { pwned: false, commonPasswords: true, repetitionAndSequence: true, userInfo: true, words: ['abc'] },
    };
    expect(codes(rules, 'abcdefgh', { username: 'abcd' })).to.deep.equal([
      'password_rejected.too_short',
      'password_rejected.character_types',
      'password_rejected.restricted.sequence',
      'password_rejected.restricted.user_info',
      'password_rejected.restricted.words',
    ]);
    expect(codes(rules, 'abcd1234')).to.deep.equal([
      'password_rejected.too_short',
      'password_rejected.common',
      'password_rejected.restricted.sequence',
      'password_rejected.restricted.words',
    ]);
  });
});
