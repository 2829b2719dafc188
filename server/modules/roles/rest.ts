/** Where the role procedures are served on REST (also under /api). */
export const path = '/organizations/{organization_id}/roles';
export const tags = ['roles'];
