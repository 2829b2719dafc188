/** Organizations: GET and POST /organizations (also under /api), and the tRPC page procedure. */
import { z } from 'zod';
import { createOrganizationInput, membershipOutput, organizationOutput } from '../../shared/schemas.ts';
import { createOrganization, listOrganizations } from '../data/organizations.ts';
import { router } from '../trpc/init.ts';
import { authenticatedProcedure, creatorProcedure } from '../trpc/procedures.ts';
import { pageInput, pageOutput, restListQuery, restPageRequest, withNextLink } from './lists.ts';
import { BODY_ERRORS, restEndpoint } from './rest-meta.ts';

const tags = ['organizations'];

export const organizationsRouter = router({
  list: authenticatedProcedure
    .meta(
      restEndpoint({
        method: 'GET',
        path: '/organizations',
        tags,
        summary: 'List the organizations the caller belongs to, oldest first',
        errors: [400],
        pagedList: true,
      }),
    )
    .input(restListQuery())
    .output(z.array(organizationOutput))
    .query(async ({ ctx, input }) => {
      const request = restPageRequest(input);
      return withNextLink(ctx, request, await listOrganizations(ctx.db, ctx.caller, request));
    }),

  /** tRPC only: the caller's organizations a page at a time. */
  page: authenticatedProcedure
    .input(pageInput)
    .output(pageOutput(organizationOutput))
    .query(({ ctx, input }) => listOrganizations(ctx.db, ctx.caller, input)),

  create: creatorProcedure
    .meta(
      restEndpoint({
        method: 'POST',
        path: '/organizations',
        tags,
        summary: 'Create an organization; the caller becomes its owner',
        errors: [...BODY_ERRORS, 403, 404],
        successStatus: 201,
      }),
    )
    .input(createOrganizationInput)
    .output(membershipOutput)
    .mutation(({ ctx, input }) => createOrganization(ctx.db, ctx.caller, input)),
});
