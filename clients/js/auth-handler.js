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

const AUTH_TYPES = { signIn: "signInViaRedirect", link: "linkViaRedirect", reauth: "reauthViaRedirect" };

/**
 * A failed sign-in. `code` is the daemon's error code (HTTP-API.md §5) or one of this client's own:
 * `popup-blocked`, `popup-closed-by-user`, `cancelled-popup-request`, `no-pending-sign-in`,
 * `network-request-failed`, `web-storage-unsupported`. The extra members the daemon sends with an error
 * (`email`, `verifiedProviders`, `credential`, `mfaPendingCredential`, `mfaInfo`) are properties of the error and
 * are also gathered in `customData`, as FirebaseAuth does.
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
        return redeem(pending.baseURL, returned.code, pending.verifier, pending.idToken);
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

/** POST /__/auth/result (HTTP-API.md §3.3): the verifier goes in this form body and nowhere else. */
async function redeem(baseURL, code, verifier, idToken) {
    if (!code) throw new AuthHandlerError("invalid-request", "the return carried neither a code nor an error");
    const form = new URLSearchParams({ code, verifier });
    if (idToken) form.set("idToken", idToken);
    let response;
    try {
        response = await fetch(baseURL + RESULT_PATH, {
            method: "POST",
            headers: { Accept: "application/json" },
            body: form,
            credentials: "same-origin",
            cache: "no-store",
            referrerPolicy: "no-referrer",
        });
    } catch (error) {
        throw new AuthHandlerError("network-request-failed", `could not reach ${baseURL + RESULT_PATH}: ${error}`);
    }
    let answer;
    try {
        answer = await response.json();
    } catch {
        throw new AuthHandlerError(
            "network-request-failed",
            `${baseURL + RESULT_PATH} answered ${response.status} without JSON: is auth-handler mounted there?`,
        );
    }
    if (response.ok) return answer;
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
