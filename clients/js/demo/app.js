// The demo app's script (docs/HTTP-API.md §1.5, docs/CLIENTS.md "Accounts in the browser"): the calls an app makes
// with the browser module, on the daemon's own origin so that the module keeps the session in its HttpOnly cookie.
import { AuthHandler, AuthHandlerError } from "/__/auth/client.js";

const auth = new AuthHandler();
const element = (id) => document.getElementById(id);

// An account-exists-with-different-credential error's pending credential and verifier, kept in this page's memory
// until the user signs in to the existing account; then link() adds the provider to it (the linking recipe).
let pendingLink = null;

function say(text) {
    element("status").textContent = text;
}

function describe(error) {
    if (error instanceof AuthHandlerError) {
        const again = error.operation ? ` (sign in again, then repeat ${error.operation})` : "";
        return `${error.code}: ${error.message}${again}`;
    }
    return String(error);
}

/** Runs one call, saying what it is doing and how it ended; answers its result, or undefined when it failed. */
async function attempt(what, call) {
    say(`${what}…`);
    try {
        const result = await call();
        say(`${what}: done`);
        return result;
    } catch (error) {
        if (error instanceof AuthHandlerError && error.code === "account-exists-with-different-credential") {
            offerLink(error);
        } else {
            say(`${what} failed: ${describe(error)}`);
        }
        return undefined;
    }
}

function offerLink(error) {
    pendingLink = { pendingCredential: error.pendingCredential, verifier: error.verifier };
    const methods = (error.verifiedProviders ?? []).join(", ") || "another method";
    element("email").value = error.email ?? "";
    const hint = element("link-hint");
    hint.textContent =
        `You already have an account with ${error.email ?? "this address"} (${methods}): sign in with it below, ` +
        "and this page links the new sign-in method to it.";
    hint.hidden = false;
    say("This address has an account already: sign in to link");
}

async function linkPending() {
    if (pendingLink === null) return;
    const { pendingCredential, verifier } = pendingLink;
    pendingLink = null;
    element("link-hint").hidden = true;
    const account = await attempt("Linking", () => auth.link(pendingCredential, verifier));
    if (account) {
        const providers = (account.providerUserInfo ?? []).map((info) => info.providerId).join(", ");
        say(`Linked: this account now signs in with ${providers || "its password"}`);
    }
}

function show(user) {
    element("signed-in").hidden = user === null;
    element("signed-out").hidden = user !== null;
    element("who").textContent = user ? user.email ?? user.sub : "";
    element("claims").textContent = user ? JSON.stringify(user, null, 2) : "";
    if (user === null) element("token").textContent = "(press Get ID token)";
}

auth.onAuthStateChanged((user) => {
    const item = document.createElement("li");
    item.textContent = `${new Date().toLocaleTimeString()}: ${user ? `signed in as ${user.email ?? user.sub}` : "signed out"}`;
    element("events").append(item);
    show(user);
});

element("email-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const email = element("email").value;
    const password = element("password").value;
    const signedIn =
        event.submitter?.value === "sign-up"
            ? await attempt("Creating the account", () =>
                  auth.signUpWithEmail(email, password, element("name").value || undefined),
              )
            : await attempt("Signing in", () => auth.signInWithEmail(email, password));
    if (signedIn) {
        element("password").value = "";
        await linkPending();
    }
});

element("google-redirect").addEventListener("click", () => {
    say("Going to Google (the fake IdP)…");
    auth.signInWithRedirect("google.com");
});

element("google-popup").addEventListener("click", () => {
    // Called in the click's own task, before any await: the browser allows a popup only then.
    attempt("Signing in with Google in a popup", () => auth.signInWithPopup("google.com"));
});

async function showToken(forceRefresh) {
    const token = await attempt("Getting the ID token", () => auth.getIdToken({ forceRefresh }));
    if (token) element("token").textContent = token;
}
element("get-token").addEventListener("click", () => showToken(false));
element("force-refresh").addEventListener("click", () => showToken(true));

element("send-verification").addEventListener("click", async () => {
    const answer = await attempt("Sending a verification e-mail", () => auth.sendEmailVerification());
    if (answer) say(answer.sent ? "Sent: open the link in the outbox's mail" : "Not sent: the address is verified");
});

element("sign-out").addEventListener("click", () => attempt("Signing out", () => auth.signOut()));

// On every load: the return from a redirect sign-in, if this load is one; else the session the cookie holds.
// A failed call leaves its message on the page.
const returned = await attempt("Completing the sign-in", () => auth.getRedirectResult());
const restored = returned === null ? await attempt("Restoring the session", () => auth.getIdToken()) : returned;
const user = auth.currentUser();
if (restored !== undefined) say(user ? `Signed in as ${user.email ?? user.sub}` : "Signed out");
show(user);
document.documentElement.dataset.ready = "true";
