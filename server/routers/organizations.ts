/** Organizations: GET and POST /organizations (also under /api). */
import { z } from 'zod';
import { createOrganizationInput, membershipOutput, organizationOutput } from '../../shared/schemas.ts';
import { createOrganization, listOrganizations } from '../data/organizations.ts';
import { router } from '../trpc/init.ts';
import { pageInput, pageOutput, restListQuery, restPageRequest, withNextLink } from './lists.ts';
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
    .input(restListQuery())
    .output(z.array(organizationOutput))
    .query(async ({ ctx, input }) => {
      const request = restPageRequest(input);
      return withNextLink(ctx, request, await listOrganizations(ctx.em, ctx.caller, request));
    }),

  /** tRPC only: the caller's organizations a page at a time. */
  page: authenticatedProcedure
    .input(pageInput)
    .output(pageOutput(organizationOutput))
    .query(({ ctx, input }) => listOrganizations(ctx.em, ctx.caller, input)),

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
