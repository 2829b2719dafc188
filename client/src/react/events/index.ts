/** The audit log (behaviour §9): `EventsLog`, the organization's events, live. */
export { EventsLog, type EventsLogProps } from './EventsLog.tsx';
