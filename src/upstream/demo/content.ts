/** Markdown of the demo spaces: enough real content for change requests, links, PDFs and the ask. */
import type { PageInput } from '../content/revisions.js';

export const apiGuide: PageInput[] = [
  {
    title: 'Overview',
    markdown: `# Overview

The Acme API lets you manage orders, customers and invoices over HTTP and JSON.
Every request is authenticated with a bearer token; see [Authentication](authentication).

## Base URL

All endpoints live under \`https://api.acme.test/v2\`. Responses are JSON and timestamps are ISO 8601.

## Versioning

Breaking changes ship under a new path prefix. Read the [changelog](changelog) before upgrading.
`,
  },
  {
    title: 'Authentication',
    markdown: `# Authentication

Create an API token in the dashboard under **Settings → Tokens**. Send it in the
\`Authorization: Bearer <token>\` header of every request.

## Token lifetime

Tokens do not expire, but an administrator can revoke them at any time. Rotate tokens every 90 days.

## Scopes

A token carries scopes such as \`orders:read\` and \`orders:write\`. A request outside the token's
scopes answers 403.
`,
  },
  {
    title: 'Pagination',
    markdown: `# Pagination

List endpoints return \`{items, next}\`. Pass \`next.page\` as the \`page\` query parameter to
fetch the following page. The default page size is 50 and the maximum \`limit\` is 1000.

## Stable cursors

Page tokens stay valid while new items are inserted, so walking a list never shows an item twice.
See also [Rate limits](rate-limits).
`,
  },
  {
    title: 'Rate limits',
    markdown: `# Rate limits

Each token may send 600 requests per minute. Past the limit the API answers 429 with a
\`Retry-After\` header giving the seconds to wait.

## Retrying safely

Retry idempotent reads with exponential backoff. Never retry a write blindly: check its effect
first. The [errors page](errors) lists every status code.
`,
  },
  {
    title: 'Errors',
    markdown: `# Errors

Errors answer with a JSON body \`{"error": {"code", "message"}}\` and one of these statuses:

- 400: the request is invalid; the message names the field and the rule.
- 401: the token is missing or unknown. See [Authentication](authentication).
- 403: the token lacks the scope or role for this request.
- 404: the resource does not exist or is not visible to you.
- 429: too many requests; wait for the seconds in \`Retry-After\` ([Rate limits](rate-limits)).
`,
  },
  {
    title: 'Changelog',
    markdown: `# Changelog

## 2026-09

Invoices gained a \`dueAt\` field. Orders can be filtered by status.

## 2026-03

Version 2 of the API replaced offset pagination with page tokens.
`,
  },
];

export const handbook: PageInput[] = [
  {
    title: 'Welcome',
    markdown: `# Welcome to Acme

This handbook explains how we work: our values, how we plan, and how we ship.
Start with [How we plan](how-we-plan) and [Onboarding](onboarding).
`,
  },
  {
    title: 'How we plan',
    markdown: `# How we plan

We plan in six-week cycles followed by a two-week cool-down. Each cycle starts with a betting table
where leads pick the pitches worth the time.

## Writing a pitch

A pitch names the problem, the appetite (how much time it is worth), the solution sketch and the
rabbit holes to avoid.
`,
  },
  {
    title: 'Onboarding',
    markdown: `# Onboarding

Your first week: set up your laptop, read the handbook, pair with your onboarding buddy and ship a
small change to production.

## Accounts

You get accounts for email, chat, the code host and the documentation platform on day one.
The [security policy](security) explains how to store secrets.
`,
  },
  {
    title: 'Security',
    markdown: `# Security

Use the password manager for every secret. Enable two-factor authentication everywhere.
Report incidents in the #security channel within one hour.

## Laptops

Disks are encrypted and screens lock after five minutes.
`,
  },
];

export const designSystem: PageInput[] = [
  {
    title: 'Design principles',
    markdown: `# Design principles

Clarity over cleverness. Consistency over novelty. Accessibility is not optional: every component
meets WCAG 2.2 AA. See [Colors](colors) and [Typography](typography).
`,
  },
  {
    title: 'Colors',
    markdown: `# Colors

The primary palette is indigo with neutral greys. Text on colored backgrounds keeps a contrast
ratio of at least 4.5:1.

## Dark mode

Every color token has a dark-mode pair. Never hard-code hex values in components.
`,
  },
  {
    title: 'Typography',
    markdown: `# Typography

Body text uses Inter at 16 px with a 1.5 line height. Headings use the same family, bold.
Code uses JetBrains Mono.
`,
  },
];

export const releaseNotes: PageInput[] = [
  {
    title: 'Release notes',
    markdown: `# Release notes

## Version 4.2

Faster search, a new export to PDF and fixes to the mobile layout.

## Version 4.1

Single sign-on with SAML and team-based permissions.
`,
  },
];

export const labNotes: PageInput[] = [
  {
    title: 'Lab notebook',
    markdown: `# Lab notebook

Experiments with the new catalyst ran at 80 °C for four hours. Yield improved by 12 percent.

## Next steps

Repeat the run at 70 °C and compare purity with the [protocol](protocol).
`,
  },
  {
    title: 'Protocol',
    markdown: `# Protocol

1. Weigh the reagents.
2. Heat the mixture slowly.
3. Record temperature every ten minutes.
`,
  },
];
