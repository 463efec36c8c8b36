import { z } from 'zod';
import { searchablePagination } from '../../lib/http/api.ts';

export const resource = z.object({
  id: z.string(),
  name: z.string(),
  indicator: z.string(),
  isDefault: z.boolean(),
  accessTokenTtl: z.number(),
  createdAt: z.number(),
});

export const scope = z.object({
  id: z.string(),
  resourceId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  createdAt: z.number(),
});

const indicator = z.string().max(2048).refine((value) => URL.canParse(value), 'must be an absolute URI')
  .refine((value) => !value.includes('#'), 'must not contain a fragment');
const ttl = z.number().int().min(60).max(86_400);
const scopeName = z.string().min(1).max(256).regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be a valid OAuth scope token (no spaces or quotes)');

export const createResourceBody = z.object({
  name: z.string().trim().min(1).max(256),
  indicator,
  accessTokenTtl: ttl.optional(),
}).strict();

export const updateResourceBody = z.object({
  name: z.string().trim().min(1).max(256).optional(),
  accessTokenTtl: ttl.optional(),
}).strict();

export const isDefaultBody = z.object({ isDefault: z.boolean() }).strict();

export const createScopeBody = z.object({
  name: scopeName,
  description: z.string().max(2048).nullish(),
}).strict();

export const updateScopeBody = z.object({
  name: scopeName.optional(),
  description: z.string().max(2048).nullish(),
}).strict();

export const listQuery = searchablePagination;
