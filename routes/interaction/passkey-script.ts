/**
 * The one script of the sign-in pages: WebAuthn is a JavaScript API, so the passkey pages run it to answer the
 * challenge their form carries (`data-options`, SimpleWebAuthn's JSON) and post the browser's answer in the
 * form's `payload` field. Served as a file from the service's own origin and allowed by path in the page's CSP
 * (`script-src` names this URL; no inline script, no `unsafe-inline`). Every other factor stays a plain form.
 */
export const PASSKEY_SCRIPT_PATH = '/interaction/assets/passkey.js';

export const PASSKEY_SCRIPT = `'use strict';
(function () {
  var form = document.querySelector('form[data-ceremony]');
  if (!form) return;
  var status = document.getElementById('passkey-status');
  function say(text) { if (status) status.textContent = text; }
  var note = document.getElementById('passkey-needs-script');
  if (note) note.remove();
  if (!window.PublicKeyCredential || !navigator.credentials) {
    say('This browser cannot use passkeys. Use another way to verify.');
    return;
  }
  function bytes(text) {
    var base64 = text.replace(/-/g, '+').replace(/_/g, '/');
    while (base64.length % 4) base64 += '=';
    var binary = atob(base64);
    var out = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) out[i] = binary.charCodeAt(i);
    return out.buffer;
  }
  function text(buffer) {
    var view = new Uint8Array(buffer);
    var binary = '';
    for (var i = 0; i < view.length; i += 1) binary += String.fromCharCode(view[i]);
    return btoa(binary).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }
  function described(list) {
    return (list || []).map(function (item) { return { type: item.type, id: bytes(item.id), transports: item.transports }; });
  }
  function answer(credential) {
    if (typeof credential.toJSON === 'function') return credential.toJSON();
    var r = credential.response;
    var response = r.attestationObject
      ? { clientDataJSON: text(r.clientDataJSON), attestationObject: text(r.attestationObject),
          transports: typeof r.getTransports === 'function' ? r.getTransports() : undefined }
      : { clientDataJSON: text(r.clientDataJSON), authenticatorData: text(r.authenticatorData), signature: text(r.signature),
          userHandle: r.userHandle ? text(r.userHandle) : undefined };
    return { id: credential.id, rawId: text(credential.rawId), type: credential.type, response: response,
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      clientExtensionResults: credential.getClientExtensionResults() };
  }
  var options = JSON.parse(form.getAttribute('data-options'));
  var creating = form.getAttribute('data-ceremony') === 'create';
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    say('Follow the prompt of your browser or security key.');
    var publicKey = Object.assign({}, options, { challenge: bytes(options.challenge) });
    var asked;
    if (creating) {
      publicKey.user = Object.assign({}, options.user, { id: bytes(options.user.id) });
      publicKey.excludeCredentials = described(options.excludeCredentials);
      asked = navigator.credentials.create({ publicKey: publicKey });
    } else {
      publicKey.allowCredentials = described(options.allowCredentials);
      asked = navigator.credentials.get({ publicKey: publicKey });
    }
    asked.then(function (credential) {
      form.elements.namedItem('payload').value = JSON.stringify(answer(credential));
      say('Checking your passkey…');
      form.submit();
    }, function () {
      say('The passkey was not used: the prompt was closed, timed out, or found no passkey for this account. Try again, or use another way to verify.');
    });
  });
})();
`;
