/** The kinds of entity data events are about: the first part of each data event's name. */
export type EntityKind = 'User' | 'Role' | 'Scope' | 'Organization' | 'OrganizationRole' | 'OrganizationScope';

/** The entity one data event changed, e.g. `{ kind: 'User', id: 'usr_1' }`. */
export interface EntityRef {
  kind: EntityKind;
  id: string;
}

/**
 * The entity a data event (as stamped) is about. The scope events of a role and the membership events of an organization change
 * that role or organization (its `roleId`, `organizationRoleId`, `organizationId`); every other data event's entity
 * is its `data`. Undefined only when a payload names no entity (a crafted one).
 */
export function entityOf(event: Readonly<Record<string, unknown>>): EntityRef | undefined {
  const name = String(event.event);
  const kind = name.slice(0, name.indexOf('.')) as EntityKind;
  const fields = event as Partial<Record<'roleId' | 'organizationRoleId' | 'organizationId' | 'data', unknown>>;
  const owner = fields.roleId ?? fields.organizationRoleId ?? fields.organizationId;
  const id = typeof owner === 'string' ? owner : idOf(fields.data);
  return id === undefined ? undefined : { kind, id };
}

function idOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const id = (data as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The key of an entity's version record. */
export function entityKey(entity: EntityRef): string {
  return `${entity.kind}:${entity.id}`;
}
