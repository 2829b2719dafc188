import type { RouterOutputs } from '../../index.ts';

export type Team = RouterOutputs['teams']['list'][number];
export type TeamMember = RouterOutputs['teams']['members'][number];

/** What the create and edit forms send of a team. */
export interface TeamDraft {
  name: string;
  description: string;
  roles: string[];
}

export const fullName = (person: { first_name: string; last_name: string }) =>
  `${person.first_name} ${person.last_name}`;
