/** Organizations: GET and POST /organizations (also under /api). */
import { z } from 'zod';
import { createOrganizationInput, membershipOutput, organizationOutput } from '../../shared/schemas.ts';
import { createOrganization, listOrganizations } from '../data/organizations.ts';
import { router } from '../trpc/init.ts';
import { authenticatedProcedure, creatorProcedure } from '../trpc/procedures.ts';

export const organizationsRouter = router({
  list: authenticatedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/organizations',
        tags: ['organizations'],
        summary: 'List the organizations the caller belongs to',
      },
    })
    .output(z.array(organizationOutput))
    .query(({ ctx }) => listOrganizations(ctx.em, ctx.caller)),

  create: creatorProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/organizations',
        tags: ['organizations'],
        summary: 'Create an organization owned by the caller',
      },
      successStatus: 201,
    })
    .input(createOrganizationInput)
    .output(membershipOutput)
    .mutation(({ ctx, input }) => createOrganization(ctx.em, ctx.caller, input)),
});
