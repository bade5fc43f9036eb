import type { UpstreamServices } from '../context.js';
import type { Router } from '../router.js';
import * as ask from './ask.js';
import * as changeRequests from './changeRequests.js';
import * as collections from './collections.js';
import * as comments from './comments.js';
import * as fonts from './fonts.js';
import * as integrations from './integrations.js';
import * as invites from './invites.js';
import * as members from './members.js';
import * as openapi from './openapi.js';
import * as orgs from './orgs.js';
import * as permissions from './permissions.js';
import * as saml from './saml.js';
import * as shareLinks from './shareLinks.js';
import * as siteRedirects from './siteRedirects.js';
import * as siteSectionGroups from './siteSectionGroups.js';
import * as siteSections from './siteSections.js';
import * as sites from './sites.js';
import * as spaces from './spaces.js';
import * as teams from './teams.js';
import * as translations from './translations.js';
import * as users from './users.js';

/** One module per seed section; each registers its routes (paths relative to `/v1`). */
const modules = [
  users,
  orgs,
  spaces,
  collections,
  changeRequests,
  comments,
  permissions,
  sites,
  siteSections,
  siteSectionGroups,
  siteRedirects,
  shareLinks,
  members,
  teams,
  invites,
  saml,
  openapi,
  translations,
  fonts,
  integrations,
  ask,
];

export function registerRoutes(router: Router, services: UpstreamServices) {
  for (const m of modules) m.register(router, services);
}
