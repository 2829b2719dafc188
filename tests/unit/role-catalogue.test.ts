/**
 * The role catalogue (behaviour §11): the service's permissions and the built-in roles alone, what
 * a roles file (ROLES_FILE) adds to them, and every file the start refuses, with a message that
 * names the place in the file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  RoleCatalogue,
  RoleCatalogueError,
  SERVICE_PERMISSIONS,
  type RolesFile,
} from '../../server/platform/role-catalogue.ts';
import { readSettings, SettingsError } from '../../server/platform/config.ts';
import { ROLES } from '../../shared/fields.ts';
import { codeBlock, parseMarkdown } from '../support/markdown.ts';
import { EXPECTED } from '../support/permissions.ts';
import { projectRoot } from '../support/process.ts';

const SERVICE_NAMES = Object.keys(SERVICE_PERMISSIONS);

const sorted = (names: Iterable<string>) => [...names].sort();

/** A file an application might ship: two permissions of its own, an instance role, grants to both. */
const APPLICATION_FILE: RolesFile = {
  permissions: {
    'reports:read': 'Read the reports',
    'reports:export': 'Export the reports',
  },
  roles: {
    auditor: {
      description: 'Reads the organization, its events and its reports',
      permissions: ['organization:read', 'events:read', 'reports:read'],
    },
    // No description: an empty one.
    exporter: { permissions: ['reports:export'] },
  },
  grants: { admin: ['reports:read', 'reports:export'], member: ['reports:read'] },
};

/** The message of the RoleCatalogueError that `makeCatalogue` throws. */
function refusal(makeCatalogue: () => RoleCatalogue): string {
  try {
    makeCatalogue();
  } catch (error) {
    expect(error).toBeInstanceOf(RoleCatalogueError);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

describe('the role catalogue without a roles file', () => {
  const catalogue = new RoleCatalogue();

  it("knows the service's 22 permissions, and no other", () => {
    expect(SERVICE_NAMES).toHaveLength(22);
    expect(sorted(catalogue.permissions.keys())).toEqual(sorted(SERVICE_NAMES));
    expect(catalogue.isKnown('reports:read')).toBe(false);
  });

  it('has the built-in roles only, each with its permissions', () => {
    expect([...catalogue.fixedRoles.keys()]).toEqual([...ROLES]);
    for (const role of ROLES) {
      const definition = catalogue.fixedRoles.get(role)!;
      expect(definition.kind).toBe('built_in');
      expect(definition.description).not.toBe('');
      expect(sorted(definition.permissions)).toEqual(sorted(EXPECTED[role]));
    }
  });

  it("answers an organization's role from its stored permissions, and none for a role it does not have", () => {
    expect(sorted(catalogue.permissionsOf('viewer', '["members:read","organization:read"]')!)).toEqual([
      'members:read',
      'organization:read',
    ]);
    expect(catalogue.permissionsOf('viewer', null)).toBeUndefined();
    // A built-in role is the catalogue's, whatever a row says.
    expect(sorted(catalogue.permissionsOf('member', '["members:add"]')!)).toEqual(sorted(EXPECTED.member));
  });
});

describe('the role catalogue of a roles file', () => {
  const catalogue = new RoleCatalogue(APPLICATION_FILE);
  const permissionsOf = (role: string) => sorted(catalogue.fixedRoles.get(role)!.permissions);

  it("knows the application's permissions beside the service's, with their descriptions", () => {
    expect(sorted(catalogue.permissions.keys())).toEqual(sorted([...SERVICE_NAMES, 'reports:read', 'reports:export']));
    expect(catalogue.permissions.get('reports:export')).toBe('Export the reports');
    expect(catalogue.isKnown('reports:read')).toBe(true);
    expect(catalogue.isKnown('reports:delete')).toBe(false);
  });

  it('gives the owner every permission, the application ones included', () => {
    expect(permissionsOf('owner')).toEqual(sorted([...EXPECTED.owner, 'reports:read', 'reports:export']));
  });

  it('gives admin and member exactly their grants beside their service permissions', () => {
    expect(permissionsOf('admin')).toEqual(sorted([...EXPECTED.admin, 'reports:read', 'reports:export']));
    expect(permissionsOf('member')).toEqual(sorted([...EXPECTED.member, 'reports:read']));
  });

  it('holds the instance roles, after the built-in ones, with their permissions and descriptions', () => {
    expect([...catalogue.fixedRoles.keys()]).toEqual([...ROLES, 'auditor', 'exporter']);
    expect(catalogue.fixedRoles.get('auditor')).toEqual({
      role: 'auditor',
      description: 'Reads the organization, its events and its reports',
      permissions: new Set(['organization:read', 'events:read', 'reports:read']),
      kind: 'instance',
    });
    expect(catalogue.fixedRoles.get('exporter')).toMatchObject({ description: '', kind: 'instance' });
    expect(sorted(catalogue.permissionsOf('exporter', null)!)).toEqual(['reports:export']);
  });

  it('grants nothing an empty file does not', () => {
    const empty = new RoleCatalogue({});
    expect(sorted(empty.permissions.keys())).toEqual(sorted(SERVICE_NAMES));
    expect(sorted(empty.fixedRoles.get('member')!.permissions)).toEqual(sorted(EXPECTED.member));
  });

  it('refuses an undeclared permission or an owners-only one for an organization role', () => {
    expect(catalogue.problemWithPermissions(['reports:read', 'members:read'])).toBeUndefined();
    expect(catalogue.problemWithPermissions(['reports:delete'])).toBe('Unknown permission: reports:delete');
    expect(catalogue.problemWithPermissions(['ownership:transfer'])).toMatch(/^ownership:transfer belongs to owners/);
  });
});

describe('the roles file of docs/api.md', () => {
  it('is one the start accepts, with what the page says it holds', () => {
    const page = parseMarkdown(readFileSync(join(projectRoot, 'docs/api.md'), 'utf8'));
    const catalogue = new RoleCatalogue(JSON.parse(codeBlock(page, 'json roles-file')) as RolesFile);
    expect(catalogue.fixedRoles.get('auditor')?.kind).toBe('instance');
    expect(catalogue.fixedRoles.get('member')?.permissions.has('reports:read')).toBe(true);
  });
});

describe('a roles file that cannot be used is refused, naming the place', () => {
  const long = 'x'.repeat(501);
  const declared = { 'reports:read': 'Read the reports' };
  const cases: Array<[string, unknown, string | RegExp]> = [
    ['an unknown top-level key', { permission: {} }, 'the file: Unrecognized key: "permission"'],
    [
      'a malformed permission name',
      { permissions: { Reports: '' } },
      'permissions.Reports: is not <resource>:<action>',
    ],
    [
      'a permission name without an action',
      { permissions: { reports: '' } },
      'permissions.reports: is not <resource>:<action>',
    ],
    [
      "a permission that is one of the service's",
      { permissions: { 'members:read': 'Read' } },
      "permissions.members:read: is one of the service's own permissions",
    ],
    [
      'a permission description over 500 characters',
      { permissions: { 'reports:read': long } },
      /^permissions\.reports:read: .*500/,
    ],
    [
      'a description with a control character',
      { permissions: { 'reports:read': 'Read\u0000' } },
      /^permissions\.reports:read: .*control/,
    ],
    ['permissions that are not an object', { permissions: ['reports:read'] }, /^permissions: .*record/],
    [
      'a role named like a built-in one',
      { roles: { admin: { permissions: ['members:read'] } } },
      'roles.admin: is a built-in role',
    ],
    [
      'a malformed role name',
      { roles: { Auditor: { permissions: ['members:read'] } } },
      'roles.Auditor: is not a role name',
    ],
    [
      'a role with an undeclared permission',
      { roles: { auditor: { permissions: ['reports:read'] } } },
      'roles.auditor.permissions: Unknown permission: reports:read',
    ],
    [
      'a role with organization:delete',
      { roles: { closer: { permissions: ['organization:delete'] } } },
      /^roles\.closer\.permissions: organization:delete belongs to owners alone/,
    ],
    [
      'a role with ownership:transfer',
      { roles: { heir: { permissions: ['members:read', 'ownership:transfer'] } } },
      /^roles\.heir\.permissions: ownership:transfer belongs to owners alone/,
    ],
    ['a role with no permissions', { roles: { idle: { permissions: [] } } }, /^roles\.idle\.permissions: .*>=1/],
    ['a role without its permissions', { roles: { idle: { description: 'Nothing' } } }, /^roles\.idle\.permissions: /],
    [
      'a role naming a permission twice',
      { permissions: declared, roles: { reader: { permissions: ['reports:read', 'reports:read'] } } },
      'roles.reader.permissions: names reports:read twice',
    ],
    [
      'a role with more than 100 permissions',
      { roles: { many: { permissions: Array.from({ length: 101 }, (_, index) => `p:a${index}`) } } },
      /^roles\.many\.permissions: .*100/,
    ],
    [
      'a role description over 500 characters',
      { roles: { auditor: { description: long, permissions: ['members:read'] } } },
      /^roles\.auditor\.description: .*500/,
    ],
    [
      'a role with another key',
      { roles: { auditor: { permissions: ['members:read'], teams: [] } } },
      'roles.auditor: Unrecognized key: "teams"',
    ],
    [
      'grants to owner',
      { permissions: declared, grants: { owner: ['reports:read'] } },
      'grants: Unrecognized key: "owner"',
    ],
    [
      'grants to an instance role',
      { permissions: declared, grants: { auditor: ['reports:read'] } },
      'grants: Unrecognized key: "auditor"',
    ],
    [
      'a grant of a service permission',
      { grants: { member: ['members:add'] } },
      'grants.member: members:add is not an application permission of the file',
    ],
    [
      'a grant of an undeclared permission',
      { permissions: declared, grants: { admin: ['reports:export'] } },
      'grants.admin: reports:export is not an application permission of the file',
    ],
    [
      'a grant naming a permission twice',
      { permissions: declared, grants: { member: ['reports:read', 'reports:read'] } },
      'grants.member: names reports:read twice',
    ],
  ];

  it.each(cases)('%s', (_name, file, expected) => {
    const message = refusal(() => new RoleCatalogue(file as RolesFile));
    if (typeof expected === 'string') expect(message).toBe(expected);
    else expect(message).toMatch(expected);
  });
});

describe('RoleCatalogue.read and ROLES_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orgs-roles-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const fileWith = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const readRefusal = (path: string) => refusal(() => RoleCatalogue.read(path));

  it('reads a file of JSON', () => {
    const catalogue = RoleCatalogue.read(fileWith('roles.json', JSON.stringify(APPLICATION_FILE)));
    expect(catalogue.fixedRoles.get('auditor')?.kind).toBe('instance');
  });

  it('refuses a file that is not JSON, in one line', () => {
    expect(readRefusal(fileWith('broken.json', '{"permissions": {'))).toMatch(/^not JSON: /);
    expect(readRefusal(fileWith('empty.json', ''))).toMatch(/^not JSON: /);
    // V8's message quotes the lines around the mistake.
    const quoted = readRefusal(fileWith('lines.json', '{\n  "permissions": {\n    "reports:read": Read\n  }\n}\n'));
    expect(quoted).toMatch(/^not JSON: Unexpected token 'R', .* Read } }/);
    expect(quoted).not.toContain('\n');
  });

  it('refuses JSON that is not an object', () => {
    for (const content of ['[]', '"roles"', 'null', '42']) {
      expect(readRefusal(fileWith('not-object.json', content)), content).toBe('not a JSON object');
    }
  });

  it('refuses a file that cannot be read', () => {
    expect(readRefusal(join(dir, 'missing.json'))).toMatch(/^cannot be read: ENOENT/);
    expect(readRefusal(dir)).toMatch(/^cannot be read: EISDIR/);
  });

  it('makes the catalogue of the settings, and a refused file an error naming ROLES_FILE and its path', () => {
    const path = fileWith('settings-roles.json', JSON.stringify(APPLICATION_FILE));
    expect(readSettings({ ROLES_FILE: path }).roles.isKnown('reports:export')).toBe(true);
    expect(readSettings({}).roles.isKnown('reports:export')).toBe(false);
    const bad = fileWith('settings-bad.json', '{"grants": {"owner": []}}');
    expect(() => readSettings({ ROLES_FILE: bad })).toThrow(SettingsError);
    expect(() => readSettings({ ROLES_FILE: bad })).toThrow(
      `Invalid settings: ROLES_FILE (${bad}): grants: Unrecognized key: "owner"`,
    );
  });
});
