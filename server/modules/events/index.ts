/**
 * An organization's audit events (behaviour §9), for its owners and admins: the REST list a poller
 * reads, the same as a tRPC page, and a tRPC subscription (server-sent events) that delivers each
 * new event as it commits on any instance. One procedure a file.
 */
import { router } from '../../platform/rpc/init.ts';
import { eventsPageProcedure, listEventsProcedure } from './list.ts';
import { watchEventsProcedure } from './watch.ts';

export const eventsRouter = router({
  list: listEventsProcedure,
  page: eventsPageProcedure,
  watch: watchEventsProcedure,
});
