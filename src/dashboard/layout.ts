import type { Account } from '../accounts/account-store.js';
import { html, type SafeHtml } from './html.js';

/** What the page frame needs to know about the visitor. */
export interface Frame {
  title: string;
  /**
   * The logged-in account's email and the CSRF token for the log-out form (operators also see a
   * link to the admin); null when logged out.
   */
  user: { email: string; csrf: string; operator?: boolean } | null;
  body: SafeHtml;
}

/** The frame's `user` for a logged-in account. */
export function frameUser(account: Account, csrf: string): NonNullable<Frame['user']> {
  return { email: account.email, csrf, operator: account.role === 'operator' };
}

/** A whole HTML document: header with navigation, then the page. */
export function layout(frame: Frame): string {
  const nav = frame.user
    ? html`<a href="/dashboard">Overview</a><a href="/dashboard/keys">Keys</a><a href="/dashboard/playground">Playground</a><a href="/dashboard/requests">Requests</a><a href="/dashboard/jobs">Jobs</a><a href="/docs">API docs</a>${
        frame.user.operator ? html`<a href="/dashboard/admin" id="nav-admin">Admin</a>` : ''
      }
        <span class="muted">${frame.user.email}</span>
        <form method="post" action="/dashboard/logout"><input type="hidden" name="csrf" value="${frame.user.csrf}">
          <button class="link" type="submit">Log out</button></form>`
    : html`<a href="/dashboard/login">Log in</a><a href="/dashboard/signup">Sign up</a>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Shutter</title><link rel="stylesheet" href="/dashboard/assets/style.css"></head>
<body><header><div class="bar"><a class="brand" href="/dashboard">Shutter</a>${nav}</div></header>
<main>${frame.body}</main></body></html>`.value;
}

/** A hidden CSRF field for a form. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}
