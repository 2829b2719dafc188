/** Where the domain procedures are served on REST (also under /api). */
export const path = '/organizations/{organization_id}/domains';
export const domainPath = `${path}/{domain_id}`;
export const tags = ['domains'];
