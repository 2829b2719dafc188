/**
 * Joining by a verified work e-mail and join requests (behaviour §17): suggestions, joining, the
 * organization's requests and the requester's own, one procedure a file.
 */
import { router } from '../../platform/rpc/init.ts';
import { approveJoinRequestProcedure } from './approve.ts';
import { joinProcedure } from './join.ts';
import { myJoinRequestsProcedure } from './mine.ts';
import { rejectJoinRequestProcedure } from './reject.ts';
import { joinRequestsPageProcedure, joinRequestsProcedure } from './requests.ts';
import { suggestionsProcedure } from './suggestions.ts';
import { withdrawJoinRequestProcedure } from './withdraw.ts';

export const joiningRouter = router({
  suggestions: suggestionsProcedure,
  join: joinProcedure,
  requests: joinRequestsProcedure,
  requestsPage: joinRequestsPageProcedure,
  approve: approveJoinRequestProcedure,
  reject: rejectJoinRequestProcedure,
  mine: myJoinRequestsProcedure,
  withdraw: withdrawJoinRequestProcedure,
});
