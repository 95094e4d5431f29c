import AuthHandlerCrypto
import Foundation

/// The one stylesheet of the pages people see (HTTP-API.md §3.7), embedded in the binary and inlined in each page's
/// `<style>`, and the Content-Security-Policy that admits exactly it by its SHA-256 (CSP Level 3 §8.3, hash-source).
///
/// A hash rather than `'unsafe-inline'` or a stylesheet URL: nothing else, no injected `<style>` and no `style`
/// attribute, can style a page, and a page needs no second request (which `--once`'s port and a reverse proxy
/// would both have to route). System fonts only: the policy loads nothing.
enum PageStyle {
    /// The stylesheet; every page carries it byte for byte, so its hash stays the one in the policy.
    static let stylesheet = """
        :root{color-scheme:light dark;--page:#f3f4f6;--card:#fff;--text:#111827;--muted:#4b5563;--line:#e5e7eb;\
        --control:#fff;--control-hover:#f3f4f6;--accent:#2563eb;--good:#dcfce7;--good-text:#166534;\
        --bad:#fee2e2;--bad-text:#b91c1c;--shadow:0 1px 2px rgb(0 0 0/.05),0 12px 32px rgb(0 0 0/.08)}
        @media (prefers-color-scheme:dark){:root{--page:#0f1115;--card:#181b21;--text:#f3f4f6;--muted:#a1a1aa;\
        --line:#2e333d;--control:#21252d;--control-hover:#2a2f39;--accent:#8ab4ff;--good:#14532d;--good-text:#bbf7d0;\
        --bad:#4c1010;--bad-text:#fecaca;--shadow:none}}
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
        body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:24px 16px;\
        background:var(--page);color:var(--text);\
        font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,sans-serif}
        main{width:100%;max-width:28rem;background:var(--card);border:1px solid var(--line);border-radius:16px;\
        padding:32px 28px 24px;box-shadow:var(--shadow)}
        @media (max-width:400px){body{padding:16px 12px}main{padding:28px 20px 20px}}
        h1{margin:0 0 12px;font-size:1.5rem;line-height:1.25;font-weight:650;letter-spacing:-.01em;\
        overflow-wrap:anywhere}
        p{margin:0 0 12px;overflow-wrap:anywhere}
        .mark{display:flex;align-items:center;justify-content:center;width:44px;height:44px;margin:0 0 20px;\
        border-radius:50%;font-size:22px;font-weight:700;line-height:1}
        .mark.good{background:var(--good);color:var(--good-text)}
        .mark.bad{background:var(--bad);color:var(--bad-text)}
        .lead{font-size:1.0625rem}
        .next{font-weight:600}
        .muted{color:var(--muted);font-size:.875rem}
        .choices{list-style:none;margin:24px 0 20px;padding:0;display:grid;gap:12px}
        a.choice,button{display:flex;align-items:center;justify-content:center;width:100%;min-height:48px;\
        padding:10px 16px;border:1px solid var(--line);border-radius:10px;background:var(--control);color:var(--text);\
        font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer;overflow-wrap:anywhere}
        a.choice:hover,button:hover{background:var(--control-hover)}
        a:focus-visible,button:focus-visible,input:focus-visible,summary:focus-visible{outline:3px solid var(--accent);\
        outline-offset:2px}
        button.primary{background:var(--accent);border-color:var(--accent);color:var(--card)}
        label{display:block;margin:16px 0 6px;font-weight:600}
        input{display:block;width:100%;min-height:48px;margin:0 0 16px;padding:10px 12px;border:1px solid var(--muted);\
        border-radius:10px;background:var(--control);color:var(--text);font:inherit}
        details{margin:20px 0 8px;color:var(--muted);font-size:.875rem}
        summary{cursor:pointer}
        details p{margin:8px 0 0}
        footer{margin-top:20px;padding-top:16px;border-top:1px solid var(--line);color:var(--muted);font-size:.8125rem}
        footer p{margin:0}
        code{font:.8125rem/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}

        """

    /// The CSP source expression that admits ``stylesheet``: `'sha256-` + base64(SHA-256(stylesheet)) + `'`; nil only
    /// when hashing fails, and then pages go unstyled rather than the policy loosened.
    static let hashSource: String? = (try? SHA256.hash(Array(stylesheet.utf8))).map { "'sha256-\(Base64.encode($0))'" }

    /// The Content-Security-Policy on every response the service sends (HTTP-API.md §3.5): nothing may load, run or
    /// frame the page; only ``stylesheet`` may style it.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src \(hashSource ?? "'none'"); frame-ancestors 'none'"
}
