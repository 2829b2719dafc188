/**
 * The key the database keeps unique among an organization's team names (behaviour §4.4, §12): the
 * base64url SHA-256 of the name's comparable form (`teamNameKey`). A digest, not the form itself,
 * because the form can be far longer than the name (NFKC writes U+FDFA as 18 characters) while a
 * unique index has a bounded width. The database compares the keys byte for byte.
 */
import { createHash } from 'node:crypto';
import { teamNameKey } from '../../../shared/teams.ts';

export const storedTeamNameKey = (name: string) => createHash('sha256').update(teamNameKey(name)).digest('base64url');
