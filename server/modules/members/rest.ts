/** Where the membership procedures are served on REST: one path, the organization in a header. */
export const path = '/organization-user';
export const tags = ['organization users'];
