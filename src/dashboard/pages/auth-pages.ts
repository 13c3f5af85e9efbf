import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../accounts/password.js';
import { html } from '../html.js';
import { csrfField, layout } from '../layout.js';

/** What a log-in or sign-up form shows again after a refusal (never the password). */
export interface AuthForm {
  csrf: string;
  email?: string;
  error?: string;
  notice?: string;
}

/** The log-in page. */
export function loginPage(form: AuthForm): string {
  return layout({
    title: 'Log in',
    user: null,
    body: html`<div class="card narrow"><h1>Log in</h1>
      ${form.notice ? html`<p class="notice">${form.notice}</p>` : ''}
      ${form.error ? html`<p class="error" role="alert">${form.error}</p>` : ''}
      <form method="post" action="/dashboard/login">${csrfField(form.csrf)}
        <label for="email">Email</label><input id="email" type="email" name="email" required autocomplete="username" value="${form.email ?? ''}">
        <label for="password">Password</label><input id="password" type="password" name="password" required autocomplete="current-password" maxlength="${PASSWORD_MAX_LENGTH}">
        <p><button type="submit">Log in</button></p>
      </form>
      <p class="muted">No account yet? <a href="/dashboard/signup">Sign up</a>.</p></div>`,
  });
}

/** The sign-up page (or the notice that sign-ups are closed). */
export function signupPage(form: AuthForm & { open: boolean }): string {
  const body = form.open
    ? html`<div class="card narrow"><h1>Sign up</h1>
      <p class="muted">Free plan: 100 captures a month, no card needed.</p>
      ${form.error ? html`<p class="error" role="alert">${form.error}</p>` : ''}
      <form method="post" action="/dashboard/signup">${csrfField(form.csrf)}
        <label for="email">Email</label><input id="email" type="email" name="email" required autocomplete="username" value="${form.email ?? ''}">
        <label for="password">Password <span class="muted">(at least ${PASSWORD_MIN_LENGTH} characters)</span></label>
        <input id="password" type="password" name="password" required autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}">
        <p><button type="submit">Create account</button></p>
      </form>
      <p class="muted">Have an account? <a href="/dashboard/login">Log in</a>.</p></div>`
    : html`<div class="card narrow"><h1>Sign up</h1><p>Sign-ups are closed on this server; ask its operator for an account.</p></div>`;
  return layout({ title: 'Sign up', user: null, body });
}

/** A short page for a refused request (bad CSRF token, too many attempts). */
export function messagePage(title: string, message: string, user: { email: string; csrf: string } | null): string {
  return layout({
    title,
    user,
    body: html`<div class="card narrow"><h1>${title}</h1><p>${message}</p><p><a href="/dashboard">Back to the dashboard</a></p></div>`,
  });
}
