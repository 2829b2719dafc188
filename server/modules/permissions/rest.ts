/** Where the permission procedures are served on REST (also under /api). */
export const path = '/organizations/{organization_id}/permissions';
export const tags = ['permissions'];
