/**
 * What the SCIM service serves, as RFC 7643 describes it (behaviour §18): the schema URNs, and the
 * discovery documents `ServiceProviderConfig`, `ResourceTypes` and `Schemas`, which say what is
 * supported: PATCH and filters (1000 results at most), not bulk, sort, password changes or ETags.
 */
/** Where the SCIM service is served: its routes, and the errors answered in its body (http/error-body.ts). */
export const SCIM_PREFIX = '/scim/v2';
export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

/** The most resources one list answers (`count` above it is lowered to it). */
export const MAX_RESULTS = 1000;

export const serviceProviderConfig = (base: string) => ({
  schemas: [CONFIG_SCHEMA],
  documentationUri: 'https://datatracker.ietf.org/doc/html/rfc7644',
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_RESULTS },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'Organization API key',
      description: 'An organization API key holding directory:sync, as a bearer token',
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
});

const resourceType = (base: string, name: 'User' | 'Group', schema: string) => ({
  schemas: [RESOURCE_TYPE_SCHEMA],
  id: name,
  name,
  endpoint: `/${name}s`,
  schema,
  meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${name}` },
});

export const resourceTypes = (base: string) => [
  resourceType(base, 'User', USER_SCHEMA),
  resourceType(base, 'Group', GROUP_SCHEMA),
];

export type Attribute = {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable';
  uniqueness?: 'none' | 'server';
  subAttributes?: Attribute[];
  referenceTypes?: string[];
};

/** An attribute with RFC 7643's defaults written out, as clients expect them. */
const attribute = ({ subAttributes, ...given }: Attribute): Record<string, unknown> => ({
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...given,
  ...(subAttributes && { subAttributes: subAttributes.map(attribute) }),
});

/** What a User holds: a user's groups are not among them (RFC 7643 makes `groups` optional); a group names its members. */
export const USER_ATTRIBUTES: Attribute[] = [
  { name: 'userName', type: 'string', required: true, uniqueness: 'server' },
  { name: 'externalId', type: 'string', caseExact: true },
  {
    name: 'name',
    type: 'complex',
    subAttributes: [
      { name: 'givenName', type: 'string' },
      { name: 'familyName', type: 'string' },
      // Made of givenName and familyName, never kept as sent (RFC 7643 §7: readOnly is ignored on input).
      { name: 'formatted', type: 'string', mutability: 'readOnly' },
    ],
  },
  { name: 'displayName', type: 'string' },
  {
    name: 'emails',
    type: 'complex',
    multiValued: true,
    subAttributes: [
      { name: 'value', type: 'string' },
      { name: 'type', type: 'string' },
      { name: 'primary', type: 'boolean' },
    ],
  },
  { name: 'active', type: 'boolean' },
];

export const GROUP_ATTRIBUTES: Attribute[] = [
  { name: 'displayName', type: 'string', required: true, uniqueness: 'server' },
  { name: 'externalId', type: 'string', caseExact: true },
  {
    name: 'members',
    type: 'complex',
    multiValued: true,
    subAttributes: [
      { name: 'value', type: 'string', mutability: 'immutable' },
      { name: 'display', type: 'string', mutability: 'readOnly' },
      { name: '$ref', type: 'reference', referenceTypes: ['User'], mutability: 'immutable' },
    ],
  },
];

const schema = (base: string, id: string, name: string, attributes: Attribute[]) => ({
  schemas: [SCHEMA_SCHEMA],
  id,
  name,
  description: `${name} as this service keeps it`,
  attributes: attributes.map(attribute),
  meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
});

export const schemaDocuments = (base: string) => [
  schema(base, USER_SCHEMA, 'User', USER_ATTRIBUTES),
  schema(base, GROUP_SCHEMA, 'Group', GROUP_ATTRIBUTES),
];

/** A list as SCIM answers one (RFC 7644 §3.4.2). */
export const listResponse = <T>(resources: T[], totalResults: number, startIndex: number) => ({
  schemas: [LIST_SCHEMA],
  totalResults,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});
