/**
 * Joining by a verified work e-mail (behaviour §17): the organization's side, its join requests to
 * approve or reject, and the person's side, the organizations they may join and their own requests.
 */
export { JoinRequestsPanel, type JoinRequestsPanelProps } from './JoinRequestsPanel.tsx';
export { MyJoinRequests } from './MyJoinRequests.tsx';
export { SuggestedOrganizations } from './SuggestedOrganizations.tsx';
