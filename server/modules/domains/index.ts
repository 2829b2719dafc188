/**
 * An organization's e-mail domains (behaviour §17): /organizations/{organization_id}/domains (also
 * under /api), one procedure a file.
 */
import { router } from '../../platform/rpc/init.ts';
import { addDomainProcedure } from './add.ts';
import { getDomainProcedure } from './get.ts';
import { domainsPageProcedure, listDomainsProcedure } from './list.ts';
import { removeDomainProcedure } from './remove.ts';
import { updateDomainProcedure } from './update.ts';
import { verifyDomainProcedure } from './verify.ts';

export const domainsRouter = router({
  add: addDomainProcedure,
  list: listDomainsProcedure,
  page: domainsPageProcedure,
  get: getDomainProcedure,
  verify: verifyDomainProcedure,
  update: updateDomainProcedure,
  remove: removeDomainProcedure,
});
