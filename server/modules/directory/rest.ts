/** Where the directory procedures are served on REST (also under /api). */
export const path = '/organizations/{organization_id}/directory';
export const tags = ['directory'];
