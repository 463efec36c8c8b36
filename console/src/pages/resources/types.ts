export interface Scope {
  id: string;
  resourceId: string;
  name: string;
  description: string | null;
  createdAt: number;
}

export interface Resource {
  id: string;
  name: string;
  indicator: string;
  isDefault: boolean;
  accessTokenTtl: number;
  createdAt: number;
  scopes?: Scope[];
}
