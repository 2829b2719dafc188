/**
 * Live delivery of audit events to subscribers (behaviour §9), on every instance of the service.
 *
 * Mechanism: the instance polls the events table. Every `pollIntervalMs` ONE query fetches the new
 * events of every organization that has subscribers on this instance (each organization after its
 * own last seen `event_id`; up to CHANNELS_PER_QUERY organizations per statement, as index range
 * scans on (organization_id, event_id)), and hands them to that organization's subscribers. The
 * cost is per instance, not per subscriber: idle, it is a few empty index probes a second (figures
 * in docs/performance.md). Polling needs nothing beside the database, sees every committed event whichever
 * instance wrote it (and no uncommitted one, so the feed cannot disagree with the table), and loses
 * nothing when an instance dies between a commit and a notification. A broker would cut the delay
 * below the interval, but needs a notification sent after each commit (the changes' transactions
 * may run several times, so it could not be sent from inside them) and a catch-up from the table
 * anyway for a subscriber that reconnects.
 *
 * Why events of one organization can be read by a cursor: their ids are made under the
 * organization's lock from the newest one (organization-changes.ts), so an event committed later
 * has a larger id, and nothing commits behind a cursor.
 *
 * Bounds: each subscriber has a queue of events handed to it and not yet taken by its stream
 * (which takes them as fast as the client reads). A subscriber whose queue would pass `backlog`
 * events cannot keep up: its queue is dropped and it is disconnected; its client reconnects with
 * the last event id it saw and catches up from the table.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AuditEvent } from '../../../shared/events.ts';
import { assertHolds } from '../../platform/authorization/access.ts';
import { holdingRows, holdingsByUser, type Holds } from '../../platform/authorization/holdings.ts';
import { keyHoldings } from '../../platform/authorization/access.ts';
import { notInOrganization, nowFor } from '../../platform/authorization/memberships.ts';
import type { Db } from '../../platform/database/transaction.ts';
import { unavailable } from '../../platform/errors.ts';
import type { RoleCatalogue } from '../../platform/role-catalogue.ts';
import { eventsAfterCursors, newestEventId } from './events.queries.ts';
import { mayRevokeAccess, readEvents, revokesAccess, toAuditEvent, type Watcher } from './events.service.ts';

export interface FeedSettings {
  /** How often the instance looks for new events while it has subscribers. */
  pollIntervalMs: number;
  /** Events at most waiting for one subscriber before it is disconnected. */
  backlog: number;
  /** The deployment's roles, which the subscribers' roles are looked up in. */
  roles: RoleCatalogue;
}

/** Organizations per polling statement: 2 parameters each, far below any driver's limit. */
const CHANNELS_PER_QUERY = 500;
/** Events per polling statement; more wait for the next poll. */
const EVENTS_PER_POLL = 500;
/** Events per page when a subscriber catches up from the table. */
const CATCH_UP_PAGE = 500;

/** Why a subscription ends: its caller lost access, fell behind, or the instance ended it. */
type Ending = 'revoked' | 'lagging' | 'expired';

class Subscriber {
  readonly watcher: Watcher;
  /** The organization's newest event id this instance had seen when the subscriber joined. */
  readonly start: string | null;
  readonly #backlog: number;
  readonly #onLag: () => void;
  #queue: AuditEvent[] = [];
  #ending: Ending | undefined;
  #wake: (() => void) | undefined;

  constructor(watcher: Watcher, start: string | null, backlog: number, onLag: () => void) {
    this.watcher = watcher;
    this.start = start;
    this.#backlog = backlog;
    this.#onLag = onLag;
  }

  push(events: AuditEvent[]): void {
    if (this.#ending || events.length === 0) return;
    if (this.#queue.length + events.length > this.#backlog) {
      this.#queue = [];
      this.end('lagging');
      this.#onLag();
      return;
    }
    this.#queue.push(...events);
    this.#wake?.();
  }

  end(ending: Ending): void {
    this.#ending ??= ending;
    this.#wake?.();
  }

  /** The events handed to this subscriber, as it takes them; ends when the subscription does. */
  async *take(signal: AbortSignal): AsyncGenerator<AuditEvent> {
    const onAbort = () => this.#wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        const event = this.#queue.shift();
        if (event) {
          yield event;
          continue;
        }
        if (signal.aborted || this.#ending === 'revoked') return;
        if (this.#ending === 'lagging') throw unavailable('The subscriber fell behind: reconnect to resume');
        if (this.#ending === 'expired')
          throw unavailable('The subscription reached its longest life: reconnect to resume');
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}

/** One organization watched by this instance, and the newest of its events the instance has seen. */
interface Channel {
  organizationId: string;
  cursor: string | null;
  /** Settles once `cursor` holds the newest event id at the channel's start. */
  ready: Promise<void>;
  isReady: boolean;
  subscribers: Set<Subscriber>;
}

export class EventFeed {
  readonly #db: Db;
  readonly #settings: FeedSettings;
  readonly #log: FastifyBaseLogger;
  readonly #channels = new Map<string, Channel>();
  #timer: NodeJS.Timeout | undefined;
  #failing = false;

  constructor(db: Db, settings: FeedSettings, log: FastifyBaseLogger) {
    this.#db = db;
    this.#settings = settings;
    this.#log = log;
  }

  /**
   * The organization's events for one subscriber, as they commit: after `lastEventId` when given
   * (read from the table first), else from now on. The caller's role is checked after joining, so
   * a change that takes it away afterwards reaches the subscriber as an event, which ends the
   * subscription (the event itself is the last one delivered). `onLag` must disconnect the client.
   */
  async *watch(options: {
    organizationId: string;
    watcher: Watcher;
    lastEventId: string | null;
    signal: AbortSignal;
    maxDurationMs: number;
    onLag: () => void;
  }): AsyncGenerator<AuditEvent> {
    const { organizationId, watcher, signal } = options;
    const subscriber = await this.#join(organizationId, watcher, options.onLag);
    const expiry = setTimeout(() => subscriber.end('expired'), options.maxDurationMs);
    try {
      const held = (await this.#permissions(organizationId, [subscriber])).get(subscriber);
      if (!held) throw notInOrganization();
      assertHolds(held, 'events:read');
      let delivered = options.lastEventId ?? subscriber.start;
      if (options.lastEventId !== null) {
        // Catch up from the table; whatever commits meanwhile is in the queue too (skipped below).
        for (;;) {
          const page = await readEvents(this.#db, organizationId, { after: delivered, limit: CATCH_UP_PAGE });
          for (const event of page) {
            yield event;
            delivered = event.event_id;
            if (revokesAccess(event, watcher, this.#settings.roles)) return;
          }
          if (page.length < CATCH_UP_PAGE) break;
        }
      }
      for await (const event of subscriber.take(signal)) {
        if (delivered !== null && event.event_id <= delivered) continue;
        yield event;
        delivered = event.event_id;
      }
    } finally {
      clearTimeout(expiry);
      this.#leave(organizationId, subscriber);
    }
  }

  async #join(organizationId: string, watcher: Watcher, onLag: () => void): Promise<Subscriber> {
    let channel = this.#channels.get(organizationId);
    if (!channel) {
      const created: Channel = {
        organizationId,
        cursor: null,
        isReady: false,
        ready: Promise.resolve(),
        subscribers: new Set(),
      };
      created.ready = newestEventId(this.#db, organizationId).then((newest) => {
        created.cursor = newest;
        created.isReady = true;
      });
      this.#channels.set(organizationId, created);
      channel = created;
    }
    try {
      await channel.ready;
    } catch (error) {
      if (this.#channels.get(organizationId) === channel && channel.subscribers.size === 0) {
        this.#channels.delete(organizationId);
      }
      throw error;
    }
    const subscriber = new Subscriber(watcher, channel.cursor, this.#settings.backlog, onLag);
    channel.subscribers.add(subscriber);
    this.#schedule();
    return subscriber;
  }

  #leave(organizationId: string, subscriber: Subscriber): void {
    const channel = this.#channels.get(organizationId);
    if (!channel?.subscribers.delete(subscriber) || channel.subscribers.size > 0) return;
    this.#channels.delete(organizationId);
    if (this.#channels.size === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #schedule(): void {
    if (this.#timer || this.#channels.size === 0) return;
    this.#timer = setTimeout(() => {
      void this.#poll().finally(() => {
        this.#timer = undefined;
        this.#schedule();
      });
    }, this.#settings.pollIntervalMs);
  }

  async #poll(): Promise<void> {
    const channels = [...this.#channels.values()].filter((channel) => channel.isReady);
    try {
      for (let first = 0; first < channels.length; first += CHANNELS_PER_QUERY) {
        await this.#pollChannels(channels.slice(first, first + CHANNELS_PER_QUERY));
      }
      if (this.#failing) this.#log.info('event feed: polling works again');
      this.#failing = false;
    } catch (error) {
      // Subscribers wait; the next poll tries again. Logged once per failing stretch.
      if (!this.#failing) this.#log.warn({ err: error }, 'event feed: polling failed');
      this.#failing = true;
    }
  }

  async #pollChannels(channels: Channel[]): Promise<void> {
    const rows = await eventsAfterCursors(this.#db, channels, EVENTS_PER_POLL);
    const byOrganization = Map.groupBy(rows.map(toAuditEvent), (event) => event.organization_id);
    for (const [organizationId, events] of byOrganization) {
      const channel = this.#channels.get(organizationId);
      if (!channel) continue;
      channel.cursor = events.at(-1)!.event_id;
      await this.#deliver(channel, events);
    }
  }

  /**
   * Hands new events to an organization's subscribers, re-checking their roles (one query for all
   * of them): a subscriber gets the events up to the one that takes its access away, then ends.
   * Where no event says so plainly (a role's permissions or a team's roles changed), it gets them up
   * to the first that may have; with none of those either (its membership expired), none.
   */
  async #deliver(channel: Channel, events: AuditEvent[]): Promise<void> {
    const subscribers = [...channel.subscribers];
    const held = await this.#permissions(channel.organizationId, subscribers);
    for (const subscriber of subscribers) {
      const firstWhere = (ends: (event: AuditEvent) => boolean) =>
        events.findIndex((event) => (subscriber.start === null || event.event_id > subscriber.start) && ends(event));
      const { watcher } = subscriber;
      const revoked = firstWhere((event) => revokesAccess(event, watcher, this.#settings.roles));
      if (revoked >= 0) {
        subscriber.push(events.slice(0, revoked + 1));
        subscriber.end('revoked');
      } else if (!held.get(subscriber)?.has('events:read')) {
        subscriber.push(events.slice(0, firstWhere((event) => mayRevokeAccess(event, watcher)) + 1));
        subscriber.end('revoked');
      } else {
        subscriber.push(events);
      }
    }
  }

  /**
   * What each subscriber may do in the organization (no entry: not a member, an expired one, a key
   * revoked or expired): the persons' in one statement, each key's through the guard of its own.
   */
  async #permissions(organizationId: string, subscribers: Subscriber[]): Promise<Map<Subscriber, Holds>> {
    const held = new Map<Subscriber, Holds>();
    const persons = subscribers.filter((subscriber) => subscriber.watcher.kind === 'person');
    if (persons.length > 0) {
      const userIds = [...new Set(persons.map((subscriber) => (subscriber.watcher as { userId: string }).userId))];
      const rows = await this.#db.all(holdingRows(this.#db.sql, organizationId, userIds, nowFor(this.#db)));
      const byUser = holdingsByUser(this.#settings.roles, rows);
      for (const subscriber of persons) {
        const holds = byUser.get((subscriber.watcher as { userId: string }).userId);
        if (holds) held.set(subscriber, holds);
      }
    }
    for (const subscriber of subscribers) {
      if (subscriber.watcher.kind !== 'key') continue;
      const holds = await keyHoldings(this.#db, subscriber.watcher.actor, organizationId, this.#settings.roles);
      if (holds) held.set(subscriber, holds);
    }
    return held;
  }
}
