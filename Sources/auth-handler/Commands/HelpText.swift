import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import FakeIdP

/// The text `auth-handler --help` prints, overall or for one command.
enum HelpText {
    /// The help for `topic`, or the overview when nil; ends with a newline.
    static func text(for topic: AuthHandlerCommand.Name?) -> String {
        switch topic {
        case nil: overview
        case .serve: serve
        case .checkConfig: checkConfig
        case .fakeIdP: fakeIdP
        case .demo: demo
        case .login: login
        case .token: token
        case .logout: logout
        case .accounts: accounts
        }
    }

    static let configLine = """
          --config FILE         the config file; default $AUTH_HANDLER_CONFIG, else /etc/auth-handler/config.json
        """

    static let exitCodes = """
        Exit codes: 0 ok, 1 cancelled or denied, 2 provider or backend error, 3 timed out,
                    64 usage error, 78 configuration error.
        """

    static let overview = """
        auth-handler \(AuthHandlerVersion.string): a self-hosted OAuth/OIDC sign-in handler (/__/auth/handler).

        Usage:
          auth-handler [serve] [--config FILE]                 run the handler (the default command)
          auth-handler --once --provider ID [options]          one desktop sign-in on 127.0.0.1, then exit
          auth-handler fake-idp [--listen ADDR] [--config FILE] run the fake identity provider
          auth-handler demo [--headless]                       sign in against a built-in fake provider
          auth-handler check-config [--config FILE]            validate a config file and list every problem
          auth-handler login --server URL --provider ID        sign in from a terminal without a browser (device code)
          auth-handler token --server URL [--force-refresh]    print a fresh ID token of the server's accounts
          auth-handler logout --server URL [--scope SCOPE]     sign out of the server's accounts
          auth-handler accounts ACTION [USER] [--json]         list and manage the accounts backend's users
          auth-handler --help | --version

        Options:
        \(configLine)
          -h, --help            show help; 'auth-handler COMMAND --help' for one command
          --version             print the version

        See 'auth-handler serve --help' for the --once options.
        \(exitCodes)

        """

    static let serve = """
        Usage:
          auth-handler [serve] [--config FILE]
          auth-handler [serve] --once --provider ID [options]

        Serves sign-ins at PUBLIC_URL/__/auth/handler, or with --once performs one RFC 8252 loopback sign-in.

        Options:
        \(configLine)
          --once                one sign-in on 127.0.0.1, then exit; the config file is optional
          --provider ID         google.com, github.com, twitter.com, ..., or a configured oidc./oauth2./oauth1. id
          --port N              loopback port (default 0: any free port)
          --scope S             an extra scope (repeatable)
          --param K=V           a custom parameter sent to the provider (repeatable)
          --no-browser          print the sign-in URL instead of opening a browser
          --timeout SECONDS     give up after this long (default 300)
          --output FILE         write the result to FILE (mode 0600) instead of stdout
          --id-token-file FILE  the signed-in user's ID token, for --auth-type
          --auth-type link|reauth
                                link the new credential to, or re-authenticate, that user
          --client-id ID        OAuth 2 / OIDC client id (instead of a config file)
          --client-secret-file FILE
                                file holding the client secret
          --consumer-key KEY    OAuth 1.0a consumer key (twitter.com, oauth1.*)
          --consumer-secret-file FILE
                                file holding the consumer secret
                                Without these options: $AUTH_HANDLER_CLIENT_ID, $AUTH_HANDLER_CLIENT_SECRET_FILE,
                                $AUTH_HANDLER_CONSUMER_KEY, $AUTH_HANDLER_CONSUMER_SECRET_FILE.

        \(exitCodes)

        """

    static let checkConfig = """
        Usage: auth-handler check-config [--config FILE]

        Validates the config without network access: every problem is printed on its own line as
        'JSON.PATH: message' (warnings start with 'warning: '), then 'config OK: FILE' when it is usable.
        Secret references ({"file": ...}, {"env": ...}, {"credential": ...}) are checked to resolve; their
        values are never printed.

        Options:
        \(configLine)

        Exit codes: 0 the config is usable, 78 it is not (or cannot be read).

        """

    static let fakeIdP = """
        Usage: auth-handler fake-idp [--listen ADDR] [--config FILE]

        Runs the fake identity provider and sign-in backend used by the tests. Prints
        'fake-idp listening on http://HOST:PORT' once ready.

        Options:
          --listen ADDR         HOST:PORT or [V6]:PORT to bind (default 127.0.0.1:0, any free port)
          --config FILE         a fake-IdP JSON config replacing the built-in clients and users

        """

    static let demo = """
        Usage: auth-handler demo [--headless]

        Starts the fake identity provider in this process and performs a real sign-in against it.

        Options:
          --headless            approve automatically instead of opening a browser

        """

    static let accounts = """
        Usage:
          auth-handler accounts list [--limit N] [--after LOCALID] [--json]
          auth-handler accounts show USER [--json]
          auth-handler accounts disable USER | enable USER | revoke-sessions USER [--json]
          auth-handler accounts delete USER --yes [--json]
          auth-handler accounts set-password USER [--json]     the password from standard input, never an argument
          auth-handler accounts set-claims USER JSON|- [--json]
          auth-handler accounts import FILE|- --format firebase [--hash-key B64 --salt-separator B64
                                  --rounds N --mem-cost N] [--json]
          auth-handler accounts import FILE|- --format bcrypt-csv [--json]
          auth-handler accounts export [FILE]  every user as 'firebase auth:export' JSON, PHC-string hashes

        Manages the users of backend kind "accounts" in its database (backend.database.path), also while
        'auth-handler serve' runs. USER is a localId or an e-mail address; put '--' before a localId that
        starts with '--'. The config is read as 'serve' reads it: give it the same credentials
        ($CREDENTIALS_DIRECTORY). It never creates the database, and never prints a hash, token or code.

          list              one line per user: localId, e-mail, verified, disabled, created, last sign-in
                            (--limit N, 1-1000, default 100; the next page: --after the last localId)
          show              the user, its identities and its live sessions; never a hash, token or code
          disable           refuse the user's sign-ins and refreshes, and revoke its sessions
          enable            allow them again
          revoke-sessions   revoke every session; ID tokens signed in before now are refused where checked
          delete            remove the user with its identities and sessions (needs --yes)
          set-password      read one line (no echo at a terminal), check the password policy, hash it,
                            and revoke the user's sessions
          set-claims        custom claims for the ID tokens: a JSON object of at most 1000 bytes, '-' to read
                            it from standard input, null or {} to clear
          import            users from 'firebase auth:export --format=json' or email,bcrypt_hash[,localId]
                            lines, in one transaction: a bad row imports nothing; a stored localId is
                            skipped, never overwritten. The Firebase flags may be left out when the config
                            has backend.importedHashes.firebase, and must equal it when given
          export            the users with their hashes into FILE (created 0600), else on standard output;
                    keep the file secret

        Options:
        \(configLine)
          --json                JSON for scripts: one object a line
          --limit N, --after LOCALID
                                list's page
          --yes                 confirm delete
          --format firebase|bcrypt-csv, --hash-key B64, --salt-separator B64, --rounds N, --mem-cost N
                                import's file and the Firebase project's password hash parameters

        Exit codes: 0 ok, 1 delete without --yes, 2 database error, 64 usage error, unknown user, refused
                    password or claims, or a refused import row or flag, 78 configuration error (not backend
                    kind "accounts", or Firebase hashes without backend.importedHashes.firebase).

        """

    static let login = """
        Usage: auth-handler login --server URL --provider ID [--scope S]... [--param K=V]... [--output FILE]

        Signs in on a machine without a browser (RFC 8628 device sign-in, HTTP-API.md §3.9): prints a URL and a
        code on stderr, to open and enter on any device, waits, and writes the result JSON to stdout.
        The server must have deviceAuthorization enabled.

        Options:
          --server URL          the auth-handler server's public URL, e.g. https://auth.example.com
          --provider ID         the provider to sign in with
          --scope S             an extra scope; repeat for more
          --param K=V           a custom parameter for the provider (login_hint=...); repeat for more
          --output FILE         write the result to FILE (mode 0600) instead of stdout
          --session-file FILE   where a sign-in to the server's own accounts is kept (default below)

        When the server's backend is its own accounts, login ends signed in: the session goes to the session
        file (mode 0600, never through a symbolic link), by default
        $XDG_STATE_HOME/auth-handler/sessions/SCHEME_HOST_PORT.json ($HOME/.local/state when XDG_STATE_HOME
        is unset), and the JSON leaves out signIn.refreshToken. 'auth-handler token' then prints ID tokens.
        \(exitCodes)

        """

    static let sessionExitCodes = """
        Exit codes: 0 ok, 2 server unreachable or refusing, 4 not signed in (no session, or the server ended it:
                    run 'auth-handler login' again), 64 usage error (a session file that is a symbolic link),
                    78 an unusable session file (readable by others, not a session, or its lock file
                    a symbolic link or another user's).
        """

    static let token = """
        Usage: auth-handler token --server URL [--session-file FILE] [--force-refresh]

        Prints a fresh ID token of the session 'auth-handler login' kept for URL, one line on stdout, for a
        script's 'Authorization: Bearer'. The stored token while it is valid for more than 5 minutes, else a
        refresh (POST /__/auth/token) whose new refresh token is saved before the ID token is printed. Processes
        running at once take turns on a lock beside the session file, so only one of them refreshes.

        Options:
          --server URL          the server login signed in to
          --session-file FILE   the session file, if login was given one
          --force-refresh       refresh even a fresh token (to see changed claims)
        \(sessionExitCodes)

        """

    static let logout = """
        Usage: auth-handler logout --server URL [--session-file FILE] [--scope local|others|global]

        Signs out of the server's accounts (POST /__/auth/sign-out) and removes the session file.

        Options:
          --server URL          the server login signed in to
          --session-file FILE   the session file, if login was given one
          --scope local         this session only (the default)
          --scope others        every other session of the user; this one stays (needs a recent sign-in)
          --scope global        every session, and every ID token issued so far (needs a recent sign-in)
        \(sessionExitCodes)

        """
}
