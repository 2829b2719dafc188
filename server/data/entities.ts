/**
 * The three tables, defined with MikroORM's `defineEntity` (no decorators, so Node runs this file
 * as it is). Column names are snake_case through MikroORM's default naming strategy. Timestamps are
 * `datetime(3)`: milliseconds are part of the contract's ISO format.
 */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ROLES } from '../../shared/schemas.ts';

const now = () => new Date();

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.string().length(128).primary(),
    firstName: p.string().length(100),
    lastName: p.string().length(100),
    email: p.string().length(254).unique('users_email_unique'),
    createdAt: p.datetime(3).onCreate(now),
    updatedAt: p.datetime(3).onCreate(now).onUpdate(now),
  },
});
export type IUser = InferEntity<typeof User>;

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p.string().length(36).primary(),
    name: p.string().length(100),
    description: p.string().length(1000),
    createdBy: () => p.manyToOne(User).fieldName('created_by'),
    createdAt: p.datetime(3).onCreate(now),
  },
});

export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'organization_users',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade'),
    user: () => p.manyToOne(User).primary().deleteRule('cascade'),
    role: p.enum(ROLES).length(16),
    createdAt: p.datetime(3).onCreate(now),
    updatedAt: p.datetime(3).onCreate(now).onUpdate(now),
  },
  indexes: [
    // The member list is ordered by (created_at, user_id) within an organization and pages by it.
    { name: 'organization_users_list_idx', properties: ['organization', 'createdAt', 'user'] },
  ],
});

export const entities = [User, Organization, Membership];
