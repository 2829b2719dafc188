/** Where the team procedures are served on REST (also under /api). */
export const path = '/organizations/{organization_id}/teams';
export const teamPath = `${path}/{team_id}`;
export const tags = ['teams'];
