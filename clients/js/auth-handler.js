// auth-handler 0.1.0: the browser client of auth-handler's sign-in API (docs/HTTP-API.md §3, docs/CLIENTS.md "Web").
//
// One ES module, no dependencies, no build step. The daemon serves this exact file at /__/auth/client.js:
//
//   import { AuthHandler } from "/__/auth/client.js";
//   const auth = new AuthHandler();
//   const result = await auth.getRedirectResult();   // null unless this page is a return from a sign-in
//   if (!result) signInButton.onclick = () => auth.signInWithRedirect("google.com");
//
// Importing it does nothing: no listener, no storage, no network until a method is called.
//
// With the daemon's own accounts (HTTP-API.md §3.10, docs/CLIENTS.md "Accounts in the browser") it also keeps a
// signed-in user: the ID token in this page's memory only, the refresh token only in the HttpOnly cookie
// `auth_handler_session` (cookie mode), one refresh at a time across the origin's tabs (a Web Lock), and every tab
// told of a new token or a sign-out through a BroadcastChannel.
//
// A redirect sign-in asks for its result in the return page's fragment (`resultDelivery=fragment`, HTTP-API.md §3.1),
// which the browser sends to no server and in no Referer. A page that reads a result from its query instead (another
// client's) must not leak it: serve it with `Referrer-Policy: no-referrer` (or `same-origin`, with nothing
// third-party loaded before this module runs), docs/CLIENTS.md "Web".

const CLIENT_PATH = "/__/auth/handler";
const PICKER_PATH = "/__/auth/signin";
const RESULT_PATH = "/__/auth/result";
const POPUP_PATH = "/__/auth/popup";

// The names the daemon adds to redirectUrl on the way back (HTTP-API.md §3.2).
const RETURN_PARAMETERS = ["code", "eventId", "error", "error_description"];

// Where a redirect sign-in asks the daemon to put them: the fragment, never sent in a request or a Referer
// (HTTP-API.md §3.1 `resultDelivery`; RFC 9110 §10.1.3).
const REDIRECT_RESULT_DELIVERY = "fragment";

// The start of each popup's window name; the rest is random per sign-in, so no lookup by name finds another window.
const POPUP_NAME_PREFIX = "auth-handler-popup-";

// sessionStorage keys of pending redirect sign-ins: one per eventId, in this tab only.
const STORAGE_PREFIX = "auth-handler:pending:";

// The postMessage type completePopup() sends to its opener.
const POPUP_MESSAGE = "auth-handler:popup-return";

// How often an open popup is checked for having been closed, and how long a closed popup's message may still be
// on its way before the sign-in counts as closed by the user.
const POPUP_POLL_MS = 250;
const POPUP_CLOSED_GRACE_MS = 500;

// The accounts endpoints (HTTP-API.md §3.10).
const TOKEN_PATH = "/__/auth/token";
const SIGN_OUT_PATH = "/__/auth/sign-out";

// What this origin's tabs share: the lock one refresh holds, and the channel new tokens and sign-outs go through.
const REFRESH_LOCK = "auth-handler-refresh";
const CHANNEL_NAME = "auth-handler";

// An ID token is refreshed when it has less than this left (FirebaseAuth uses the same 5 minutes).
const REFRESH_AHEAD_MS = 5 * 60 * 1000;

// Marks a request as this origin's own script: a cross-site form cannot send it, a cross-site fetch not without a
// CORS preflight the daemon never answers (HTTP-API.md §3.10 "Cookie mode").
const SCRIPT_HEADER = { "X-Auth-Handler": "1" };

const AUTH_TYPES = { signIn: "signInViaRedirect", link: "linkViaRedirect", reauth: "reauthViaRedirect" };

/**
 * A failed sign-in. `code` is the daemon's error code (HTTP-API.md §5) or one of this client's own:
 * `popup-blocked`, `popup-closed-by-user`, `cancelled-popup-request`, `no-pending-sign-in`,
 * `network-request-failed`, `web-storage-unsupported`, `no-current-user` (an accounts call that needs a signed-in user
 * without one). A `requires-recent-login` error names in `operation` the method to call again once the user has
 * signed in again (`reauthenticateWithPassword`, or a `reauth` sign-in). The extra members the daemon sends with an
 * error (`email`, `verifiedProviders`, `credential`, `pendingCredential`, `mfaPendingCredential`, `mfaInfo`; and
 * `verifier`, added by this module for link()) are properties of the error and are also gathered in `customData`, as
 * FirebaseAuth does.
 */
export class AuthHandlerError extends Error {
    constructor(code, message, customData = {}) {
        super(message || code);
        this.name = "AuthHandlerError";
        this.code = code;
        this.customData = { ...customData };
        for (const [name, value] of Object.entries(customData)) {
            if (!(name in this)) this[name] = value;
        }
    }
}

/** The sign-in client for one auth-handler, by default the one mounted under this page's own origin. */
export class AuthHandler {
    #baseURL;
    #redirectResult = null;
    #popup = null;

    // Accounts: the ID token (memory only), its claims, the onAuthStateChanged callbacks, the channel to the other
    // tabs (opened by the first accounts call), and whether the session cookie was tried already.
    #idToken = null;
    #claims = null;
    #listeners = new Set();
    #channel = null;
    #restored = false;
    #echoes = new Map();

    /** `baseURL`: where the daemon's `/__/auth/` paths are; default the page's origin. */
    constructor({ baseURL } = {}) {
        const base = new URL(baseURL ?? window.location.origin, window.location.href);
        this.#baseURL = base.href.replace(/\/+$/, "");
    }

    get baseURL() {
        return this.#baseURL;
    }

    // MARK: redirect

    /** Navigates this tab to the provider (`providerId`), or to the daemon's provider picker when it is null. */
    signInWithRedirect(providerId, options = {}) {
        return this.#redirect(providerId, AUTH_TYPES.signIn, null, options);
    }

    /** Links the provider's credential to the user whose current ID token is `idToken`. */
    linkWithRedirect(providerId, idToken, options = {}) {
        return this.#redirect(providerId, AUTH_TYPES.link, idToken, options);
    }

    /** Signs the user whose ID token is `idToken` in again with the provider. */
    reauthenticateWithRedirect(providerId, idToken, options = {}) {
        return this.#redirect(providerId, AUTH_TYPES.reauth, idToken, options);
    }

    async #redirect(providerId, authType, idToken, options) {
        const idTokenProblem = checkIdToken(authType, idToken);
        if (idTokenProblem) throw idTokenProblem;
        const redirectUrl = options.redirectUrl ?? currentPageWithoutQuery();
        const start = await this.#prepareStart(providerId, authType, redirectUrl, options, REDIRECT_RESULT_DELIVERY);
        const pending = { verifier: start.verifier, authType, idToken, baseURL: this.#baseURL };
        storePending(start.eventId, pending);
        window.location.assign(start.url);
        // Like Firebase's signInWithRedirect: the page is going away, so the promise never settles.
        return new Promise(() => {});
    }

    /**
     * The result of the sign-in this page is the return of, or null when it is not one. Completes the return once:
     * the pending sign-in is taken out of sessionStorage and `code`, `eventId`, `error` and `error_description` are
     * removed from the address bar before the code is redeemed, so a reload resolves to null and never redeems
     * twice. Every call on one AuthHandler answers the same promise.
     *
     * They are read from the fragment, where signInWithRedirect asks the daemon to put them, or else from the query
     * (a sign-in started by an older copy of this module). A page that receives them in its query hands them, until
     * this runs, to the Referer of everything it loads: serve it with `Referrer-Policy: no-referrer` or `same-origin`
     * and load nothing third-party before this module (docs/CLIENTS.md "Web").
     */
    getRedirectResult() {
        this.#redirectResult ??= this.#completeRedirect();
        return this.#redirectResult;
    }

    async #completeRedirect() {
        const url = new URL(window.location.href);
        const returned = takeReturn(url);
        if (returned === null) return null;
        window.history.replaceState(window.history.state, "", url.href);
        const pending = returned.eventId === null ? null : takePending(returned.eventId);
        if (pending === null) {
            throw new AuthHandlerError(
                "no-pending-sign-in",
                "this tab started no sign-in with this eventId (a copied link, or another tab's return); " +
                    "the code was not redeemed: start the sign-in again",
            );
        }
        if (returned.error !== null) throw new AuthHandlerError(returned.error, returned.errorDescription);
        const result = await redeem(pending.baseURL, returned.code, pending.verifier, pending.idToken);
        this.#adoptRedemption(result);
        return result;
    }

    // MARK: popup

    /** Signs in in a popup; call it from a click handler, or the browser blocks the popup (`popup-blocked`). */
    signInWithPopup(providerId, options = {}) {
        return this.#popupSignIn(providerId, AUTH_TYPES.signIn, null, options);
    }

    /** linkWithRedirect's popup form: call it from a click handler. */
    linkWithPopup(providerId, idToken, options = {}) {
        return this.#popupSignIn(providerId, AUTH_TYPES.link, idToken, options);
    }

    /** reauthenticateWithRedirect's popup form: call it from a click handler. */
    reauthenticateWithPopup(providerId, idToken, options = {}) {
        return this.#popupSignIn(providerId, AUTH_TYPES.reauth, idToken, options);
    }

    #popupSignIn(providerId, authType, idToken, options) {
        const idTokenProblem = checkIdToken(authType, idToken);
        if (idTokenProblem) return Promise.reject(idTokenProblem);
        // window.open must run in the click's task, before any await: the browser allows a popup only while the
        // user's activation lasts. It opens blank and is sent to the start once the challenge is ready.
        const previous = this.#popup;
        const popup = window.open("", POPUP_NAME_PREFIX + randomBase64URL(16), "popup,width=500,height=650");
        if (previous !== null) {
            previous.reject(new AuthHandlerError("cancelled-popup-request", "a newer popup sign-in replaced this one"));
            // Its window has a name of its own, so the new popup did not take it over: close it.
            if (!previous.popup.closed) previous.popup.close();
        }
        if (!popup) {
            return Promise.reject(
                new AuthHandlerError(
                    "popup-blocked",
                    "the browser blocked the sign-in popup: call signInWithPopup from a click handler",
                ),
            );
        }
        const redirectUrl = options.redirectUrl ?? this.#baseURL + POPUP_PATH;
        return new Promise((resolve, reject) => {
            const operation = { popup, settled: false, cleanup: [] };
            const finish = () => {
                operation.settled = true;
                for (const undo of operation.cleanup) undo();
                if (this.#popup === operation) this.#popup = null;
            };
            operation.resolve = (value) => {
                if (!operation.settled) finish(), resolve(value);
            };
            operation.reject = (error) => {
                if (!operation.settled) finish(), reject(error);
            };
            this.#popup = operation;
            this.#runPopup(operation, providerId, authType, idToken, redirectUrl, options).catch((error) => {
                // A start that could not be made leaves the popup blank: close it.
                if (!operation.settled && !popup.closed) popup.close();
                operation.reject(error);
            });
        });
    }

    async #runPopup(operation, providerId, authType, idToken, redirectUrl, options) {
        const start = await this.#prepareStart(providerId, authType, redirectUrl, options);
        if (operation.settled) return;
        const returnOrigin = new URL(redirectUrl, window.location.href).origin;
        const arrived = new Promise((resolve) => {
            const onMessage = (event) => {
                const data = event.data;
                if (event.source !== operation.popup || event.origin !== returnOrigin) return;
                if (!data || data.type !== POPUP_MESSAGE || data.eventId !== start.eventId) return;
                resolve(data);
            };
            window.addEventListener("message", onMessage);
            operation.cleanup.push(() => window.removeEventListener("message", onMessage));
        });
        const watch = setInterval(() => {
            if (!operation.popup.closed || operation.closedAt) return;
            operation.closedAt = Date.now();
            // A message posted just before the popup closed is still delivered: give it a moment.
            operation.grace = setTimeout(() => {
                operation.reject(
                    new AuthHandlerError("popup-closed-by-user", "the popup was closed before the sign-in finished"),
                );
            }, POPUP_CLOSED_GRACE_MS);
        }, POPUP_POLL_MS);
        const stopWatching = () => {
            clearInterval(watch);
            clearTimeout(operation.grace);
        };
        operation.cleanup.push(stopWatching);
        operation.popup.location.href = start.url;
        const returned = await arrived;
        if (operation.settled) return;
        // The popup has done its part and closes itself; what is left is the opener's redemption.
        stopWatching();
        if (returned.error) {
            operation.reject(new AuthHandlerError(returned.error, returned.errorDescription));
            return;
        }
        const result = await redeem(this.#baseURL, returned.code, start.verifier, idToken);
        this.#adoptRedemption(result);
        operation.resolve(result);
    }

    /**
     * Runs on the popup's return page (`/__/auth/popup`, or an app's own page given as `redirectUrl`): hands
     * `{code, eventId}` or the error to the window that opened the popup — only when it has this page's origin —
     * clears them from the address bar, and closes the popup. Answers whether there was an opener to hand to.
     */
    static completePopup() {
        const url = new URL(window.location.href);
        const returned = takeReturn(url);
        window.history.replaceState(window.history.state, "", url.href);
        const opener = window.opener;
        if (!opener || returned === null || !sameOrigin(opener)) return false;
        // The target origin makes the browser deliver the message only to an opener of this page's origin.
        opener.postMessage({ type: POPUP_MESSAGE, ...returned }, window.location.origin);
        window.close();
        return true;
    }

    // MARK: accounts (HTTP-API.md §3.10, docs/CLIENTS.md "Accounts in the browser")

    /** Creates a password account and signs it in (`POST /__/auth/password/sign-up`). */
    async signUpWithEmail(email, password, displayName) {
        const body = { email, password, session: "cookie" };
        if (displayName !== undefined && displayName !== null) body.displayName = displayName;
        return this.#signedIn(await this.#call("POST", "/__/auth/password/sign-up", { json: body }));
    }

    /** Signs in with an e-mail address and password (`POST /__/auth/password/sign-in`). */
    async signInWithEmail(email, password) {
        const body = { email, password, session: "cookie" };
        return this.#signedIn(await this.#call("POST", "/__/auth/password/sign-in", { json: body }));
    }

    /** Renews the sign-in's `auth_time` with the password, for the calls that need a recent sign-in. */
    async reauthenticateWithPassword(password) {
        const answer = await this.#authorized("POST", "/__/auth/password/reauth", { password }, "reauthenticate");
        this.#setToken(answer.idToken, { broadcast: true });
        return answer;
    }

    /** The signed-in user's ID token claims (`sub`, `email`, `exp`, ...), or null. Never a network call. */
    currentUser() {
        return this.#claims === null ? null : { ...this.#claims };
    }

    /**
     * Calls `callback` with the user's claims (or null) now and whenever the user signs in or out — in this tab or,
     * through the channel, another tab of this origin. Answers the function that unsubscribes.
     */
    onAuthStateChanged(callback) {
        this.#openChannel();
        const listener = { callback };
        this.#listeners.add(listener);
        queueMicrotask(() => {
            if (this.#listeners.has(listener)) callback(this.currentUser());
        });
        return () => this.#listeners.delete(listener);
    }

    /**
     * The current ID token, refreshed first when it has less than 5 minutes left or when `forceRefresh`. Without a
     * token in memory (a page just loaded) the session cookie is tried once; null when there is no session. One
     * refresh runs at a time across this origin's tabs: a tab that waited for another's refresh uses the token the
     * other broadcast instead of refreshing again.
     */
    async getIdToken({ forceRefresh = false } = {}) {
        this.#openChannel();
        if (this.#idToken === null && this.#restored) return null;
        if (!forceRefresh && this.#idToken !== null && !expiresSoon(this.#claims)) return this.#idToken;
        const held = this.#idToken;
        const refreshUnlessDone = async () => {
            // The refresh of a tab that held the lock before us may have reached us on the channel: use its token.
            if (navigator.locks && this.#idToken === held) await this.#announce({ type: "catch-up" });
            if (this.#idToken !== held && this.#idToken !== null && !expiresSoon(this.#claims)) return;
            if (this.#idToken === null && this.#restored) return;
            await this.#refresh();
        };
        // Web Locks exist only in secure contexts (https, or http on loopback); elsewhere each tab refreshes alone.
        if (navigator.locks) await navigator.locks.request(REFRESH_LOCK, refreshUnlessDone);
        else await refreshUnlessDone();
        return this.#idToken;
    }

    /**
     * Signs out (`POST /__/auth/sign-out`): `scope` `local` (default: this session, in every tab of this origin),
     * `others` (every other session of the user; this one stays), `global` (every session). `others` and `global`
     * need a recent sign-in.
     */
    async signOut({ scope = "local" } = {}) {
        this.#openChannel();
        // With `session: "cookie"` the daemon clears this browser's cookie too: not for `others`.
        if (scope === "others") return this.#authorized("POST", SIGN_OUT_PATH, { scope }, "signOut");
        if (scope !== "local") {
            const answer = await this.#authorized("POST", SIGN_OUT_PATH, { scope, session: "cookie" }, "signOut");
            this.#signedOut({ broadcast: true });
            return answer;
        }
        try {
            return await this.#call("POST", SIGN_OUT_PATH, { json: { session: "cookie" } });
        } finally {
            // Signed out here even when the daemon could not be told (or there was no cookie left to end).
            this.#signedOut({ broadcast: true });
        }
    }

    /** Mails a password-reset link (`POST /__/auth/password/reset`); answers alike with an account or without. */
    async sendPasswordResetEmail(email, continueUrl) {
        const body = { email };
        if (continueUrl !== undefined && continueUrl !== null) body.continueUrl = continueUrl;
        return this.#call("POST", "/__/auth/password/reset", { json: body });
    }

    /** Mails the signed-in user a link that verifies the account's address: `{sent}`. */
    sendEmailVerification(continueUrl) {
        const body = continueUrl === undefined || continueUrl === null ? {} : { continueUrl };
        return this.#authorized("POST", "/__/auth/user/verify-email", body, "sendEmailVerification");
    }

    /** Mails `email` a link that makes it the account's address once followed: `{sent}`. Needs a recent sign-in. */
    updateEmail(email, continueUrl) {
        const body = continueUrl === undefined || continueUrl === null ? { email } : { email, continueUrl };
        return this.#authorized("POST", "/__/auth/user/email", body, "updateEmail");
    }

    /** Sets a new password; every other session ends, this tab gets a new one. Needs a recent sign-in. */
    async updatePassword(password) {
        const body = { password, session: "cookie" };
        return this.#signedIn(await this.#authorized("POST", "/__/auth/user/password", body, "updatePassword"));
    }

    /** Sets `displayName` and `photoURL` (https); `""` clears one, one left out stays. Answers the account. */
    updateProfile({ displayName, photoURL } = {}) {
        const body = {};
        if (displayName !== undefined) body.displayName = displayName;
        if (photoURL !== undefined) body.photoURL = photoURL;
        return this.#authorized("PATCH", "/__/auth/user", body, "updateProfile");
    }

    /** Deletes the signed-in user and signs every tab out. Needs a recent sign-in. */
    async deleteUser() {
        const answer = await this.#authorized("DELETE", "/__/auth/user", null, "deleteUser");
        // The session is gone with the user; this clears its cookie.
        await this.#call("POST", SIGN_OUT_PATH, { json: { session: "cookie" } }).catch(() => {});
        this.#signedOut({ broadcast: true });
        return answer;
    }

    /**
     * Links the identity of an `account-exists-with-different-credential` error to the signed-in user: the error's
     * `pendingCredential` and `verifier` (the redemption's, which this module adds to the error). Needs a recent
     * sign-in. Answers the account.
     */
    link(pendingCredential, verifier) {
        return this.#authorized("POST", "/__/auth/user/link", { pendingCredential, verifier }, "link");
    }

    /** Removes the provider's identity from the signed-in user. Needs a recent sign-in. Answers the account. */
    unlink(providerId) {
        return this.#authorized("POST", "/__/auth/user/unlink", { providerId }, "unlink");
    }

    /**
     * A redemption's `signIn` in cookie mode signs this tab in: its refresh token went into the cookie (none in the
     * body) and its ID token is this daemon's (`iss` `{publicURL}/__/auth`), not another backend's.
     */
    #adoptRedemption(result) {
        const signIn = result?.signIn;
        if (!signIn || typeof signIn.idToken !== "string" || "refreshToken" in signIn) return;
        if (decodeClaims(signIn.idToken)?.iss !== this.#baseURL + "/__/auth") return;
        this.#openChannel();
        this.#setToken(signIn.idToken, { broadcast: true });
    }

    #signedIn(answer) {
        this.#setToken(answer.idToken, { broadcast: true });
        return { ...answer, user: this.currentUser() };
    }

    /** POST /__/auth/token with the session cookie; the winner of the lock broadcasts the new token. */
    async #refresh() {
        let answer;
        try {
            answer = await this.#call("POST", TOKEN_PATH, {
                form: new URLSearchParams({ grant_type: "refresh_token", session: "cookie" }),
            });
        } catch (error) {
            const hadToken = this.#idToken !== null;
            this.#restored = true;
            // No session (no cookie, or it ended): signed out, and the other tabs with it; an outage is not.
            const noSession = error.code === "invalid_grant" || error.code === "invalid_request";
            if (error instanceof AuthHandlerError && noSession) {
                this.#signedOut({ broadcast: hadToken });
                if (!hadToken) return;
            }
            throw error;
        }
        this.#restored = true;
        this.#setToken(answer.id_token, { broadcast: false });
        if (this.#channel !== null) await this.#announce({ type: "token", idToken: answer.id_token });
    }

    /** A call with the current ID token as `Authorization: Bearer`; `operation` names the method for a retry. */
    async #authorized(method, path, json, operation) {
        const idToken = await this.getIdToken();
        if (idToken === null) throw new AuthHandlerError("no-current-user", `${operation} needs a signed-in user`);
        try {
            return await this.#call(method, path, { json, bearer: idToken });
        } catch (error) {
            if (error instanceof AuthHandlerError && error.code === "requires-recent-login") {
                error.operation = operation;
                error.customData.operation = operation;
            }
            throw error;
        }
    }

    /** One same-origin request to the daemon with `X-Auth-Handler: 1`; the JSON answer, or the daemon's error. */
    async #call(method, path, { json = null, form = null, bearer = null } = {}) {
        const headers = { Accept: "application/json", ...SCRIPT_HEADER };
        if (bearer !== null) headers.Authorization = `Bearer ${bearer}`;
        let body;
        if (form !== null) body = form;
        else if (json !== null) {
            headers["Content-Type"] = "application/json";
            body = JSON.stringify(json);
        }
        return request(this.#baseURL + path, { method, headers, body });
    }

    #setToken(idToken, { broadcast }) {
        const claims = decodeClaims(idToken);
        if (claims === null) {
            throw new AuthHandlerError("invalid-id-token", "the daemon answered an unreadable ID token");
        }
        const before = this.#claims?.sub ?? null;
        this.#idToken = idToken;
        this.#claims = claims;
        if (broadcast) this.#channel?.postMessage({ type: "token", idToken });
        if (before !== claims.sub) this.#notify();
    }

    #signedOut({ broadcast }) {
        const wasSignedIn = this.#idToken !== null;
        this.#idToken = null;
        this.#claims = null;
        this.#restored = true;
        if (broadcast) this.#channel?.postMessage({ type: "signed-out" });
        if (wasSignedIn) this.#notify();
    }

    #notify() {
        const user = this.currentUser();
        for (const listener of [...this.#listeners]) listener.callback(user);
    }

    /**
     * Posts `message` to every tab from a second channel object and resolves once this tab's own channel has received
     * it: by then the channel has handed it to the other tabs too. The refresh winner announces its token this way
     * before it releases the lock, and the next holder whose token is unchanged announces a probe before it decides
     * to refresh (a lock grant and a channel message may otherwise arrive in either order).
     */
    #announce(message) {
        return new Promise((resolve) => {
            const nonce = randomBase64URL(12);
            const sender = new BroadcastChannel(CHANNEL_NAME);
            this.#echoes.set(nonce, () => {
                this.#echoes.delete(nonce);
                sender.close();
                resolve();
            });
            sender.postMessage({ ...message, nonce });
        });
    }

    /** The channel to this origin's other tabs; opened by the first accounts call, so importing opens nothing. */
    #openChannel() {
        if (this.#channel !== null) return;
        this.#channel = new BroadcastChannel(CHANNEL_NAME);
        this.#channel.onmessage = (event) => {
            const data = event.data;
            const echo = this.#echoes.get(data?.nonce);
            if (echo) {
                echo();
            } else if (data?.type === "token" && typeof data.idToken === "string") {
                this.#restored = true;
                this.#setToken(data.idToken, { broadcast: false });
            } else if (data?.type === "signed-out") {
                this.#signedOut({ broadcast: false });
            }
        };
    }

    // MARK: the start

    async #prepareStart(providerId, authType, redirectUrl, options, resultDelivery = null) {
        const eventId = options.eventId ?? randomBase64URL(16);
        const verifier = randomBase64URL(32);
        const challenge = base64URL(new Uint8Array(await crypto.subtle.digest("SHA-256", ascii(verifier))));
        const parameters = new URLSearchParams();
        if (providerId !== null && providerId !== undefined) parameters.set("providerId", providerId);
        parameters.set("redirectUrl", new URL(redirectUrl, window.location.href).href);
        if (authType !== AUTH_TYPES.signIn) parameters.set("authType", authType);
        parameters.set("eventId", eventId);
        const scopes = Array.isArray(options.scopes) ? options.scopes.join(",") : options.scopes;
        if (scopes) parameters.set("scopes", scopes);
        if (options.customParameters && Object.keys(options.customParameters).length > 0) {
            parameters.set("customParameters", JSON.stringify(options.customParameters));
        }
        parameters.set("resultChallenge", challenge);
        if (resultDelivery !== null) parameters.set("resultDelivery", resultDelivery);
        const path = providerId === null || providerId === undefined ? PICKER_PATH : CLIENT_PATH;
        return { url: `${this.#baseURL}${path}?${parameters}`, eventId, verifier };
    }
}

// MARK: redemption

/**
 * POST /__/auth/result (HTTP-API.md §3.3): the verifier goes in this form body and nowhere else. On this page's own
 * origin it asks for cookie mode (`session=cookie` with `X-Auth-Handler: 1`), which the daemon heeds only with backend
 * `accounts`: a sign-in's refresh token then goes into the HttpOnly cookie, never into this page. Another origin gets
 * neither (the header would need a CORS preflight the daemon never answers).
 */
async function redeem(baseURL, code, verifier, idToken) {
    if (!code) throw new AuthHandlerError("invalid-request", "the return carried neither a code nor an error");
    const form = new URLSearchParams({ code, verifier });
    if (idToken) form.set("idToken", idToken);
    const headers = { Accept: "application/json" };
    if (new URL(baseURL).origin === window.location.origin) {
        form.set("session", "cookie");
        Object.assign(headers, SCRIPT_HEADER);
    }
    try {
        return await request(baseURL + RESULT_PATH, { method: "POST", headers, body: form });
    } catch (error) {
        // What link() needs with the error's pendingCredential (HTTP-API.md §3.10).
        if (error instanceof AuthHandlerError && error.pendingCredential) {
            error.verifier = verifier;
            error.customData.verifier = verifier;
        }
        throw error;
    }
}

/**
 * One request to the daemon, same origin only with cookies: the JSON answer, or an AuthHandlerError with the daemon's
 * code (§5's error object, or RFC 6749 §5.2's `{error, error_description}` of /token).
 */
async function request(url, { method, headers, body }) {
    let response;
    try {
        response = await fetch(url, {
            method,
            headers,
            body,
            credentials: "same-origin",
            cache: "no-store",
            referrerPolicy: "no-referrer",
        });
    } catch (error) {
        throw new AuthHandlerError("network-request-failed", `could not reach ${url}: ${error}`);
    }
    let answer;
    try {
        answer = await response.json();
    } catch {
        throw new AuthHandlerError(
            "network-request-failed",
            `${url} answered ${response.status} without JSON: is auth-handler mounted there?`,
        );
    }
    if (response.ok) return answer;
    if (typeof answer?.error === "string") {
        throw new AuthHandlerError(answer.error, answer.error_description ?? `answered ${response.status}`);
    }
    const { code: errorCode, message, ...extra } = answer?.error ?? {};
    throw new AuthHandlerError(errorCode ?? "network-request-failed", message ?? `answered ${response.status}`, extra);
}

// MARK: pending sign-ins in sessionStorage

function storePending(eventId, pending) {
    try {
        window.sessionStorage.setItem(STORAGE_PREFIX + eventId, JSON.stringify(pending));
    } catch (error) {
        throw new AuthHandlerError("web-storage-unsupported", `sessionStorage is not usable here: ${error}`);
    }
}

/** The pending sign-in stored under `eventId`, removed from storage; null when this tab holds none. */
function takePending(eventId) {
    let text;
    try {
        text = window.sessionStorage.getItem(STORAGE_PREFIX + eventId);
        window.sessionStorage.removeItem(STORAGE_PREFIX + eventId);
    } catch {
        return null;
    }
    if (text === null) return null;
    try {
        const pending = JSON.parse(text);
        return typeof pending?.verifier === "string" ? pending : null;
    } catch {
        return null;
    }
}

// MARK: small helpers

/**
 * The return parameters of the address `url` (HTTP-API.md §3.2), removed from it: from its fragment when that holds a
 * `code` or an `error`, else from its query; null, with `url` unchanged, when neither does.
 */
function takeReturn(url) {
    const fragment = new URLSearchParams(url.hash.slice(1));
    const inFragment = fragment.has("code") || fragment.has("error");
    const found = inFragment ? fragment : url.searchParams;
    if (!found.has("code") && !found.has("error")) return null;
    const returned = {
        code: found.get("code"),
        eventId: found.get("eventId"),
        error: found.get("error"),
        errorDescription: found.get("error_description"),
    };
    for (const name of RETURN_PARAMETERS) found.delete(name);
    if (inFragment) url.hash = fragment.toString();
    return returned;
}

/** The error for a link or reauth without the user's ID token (HTTP-API.md §3.3 requires it); null when fine. */
function checkIdToken(authType, idToken) {
    if (authType === AUTH_TYPES.signIn || (typeof idToken === "string" && idToken !== "")) return null;
    return new AuthHandlerError("invalid-request", "link and reauthenticate need the user's current ID token");
}

/** Whether `other` (a window) has this page's origin; reading a cross-origin window's location throws. */
function sameOrigin(other) {
    try {
        return other.location.origin === window.location.origin;
    } catch {
        return false;
    }
}

function currentPageWithoutQuery() {
    return window.location.origin + window.location.pathname;
}

/** The claims of a JWT (`header.payload.signature`), unverified: the daemon checks it, this only reads it. */
function decodeClaims(token) {
    try {
        const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
        const binary = atob(payload + "=".repeat((4 - (payload.length % 4)) % 4));
        const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
        return claims && typeof claims === "object" && typeof claims.sub === "string" ? claims : null;
    } catch {
        return null;
    }
}

/** Whether an ID token with these claims has less than REFRESH_AHEAD_MS left. */
function expiresSoon(claims) {
    return typeof claims?.exp !== "number" || claims.exp * 1000 - Date.now() < REFRESH_AHEAD_MS;
}

function randomBase64URL(byteCount) {
    return base64URL(crypto.getRandomValues(new Uint8Array(byteCount)));
}

/** Unpadded base64url (RFC 4648 §5), as the daemon reads `resultChallenge`. */
function base64URL(bytes) {
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function ascii(text) {
    return new TextEncoder().encode(text);
}
