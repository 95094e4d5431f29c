@testable import AuthHandlerCore
@testable import AuthHandlerCrypto

/// Known-answer material from RFC 7515 Appendix A and throwaway test keys, shared by the Crypto tests.
///
/// Source: https://www.rfc-editor.org/rfc/rfc7515#appendix-A.2 (RS256) and #appendix-A.3 (ES256), line
/// breaks "for display purposes only" removed. The PEM files are those appendices' JWK private keys
/// re-encoded with `openssl asn1parse -genconf` (PKCS #1 / SEC 1) and `openssl pkey` (PKCS #8); signing
/// A.2's input with the PEM reproduces the RFC's RS256 signature exactly, so the conversion is checked.
enum CryptoTestVectors {
    /// BASE64URL(JWS Payload) shared by A.2 and A.3 (the `{"iss":"joe",...}` claims with CRLFs).
    static let payload =
        "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"

    /// RFC 7515 A.2: the complete JWS Compact Serialization.
    static let rs256JWS =
        "eyJhbGciOiJSUzI1NiJ9." + payload + "."
        + "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7"
        + "AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4"
        + "BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K"
        + "0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqv"
        + "hJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrB"
        + "p0igcN_IoypGlUPQGe77Rw"

    /// RFC 7515 A.2.1: the RSA public key as a JWK, exactly as printed (no `kid`, `alg` or `use`).
    static let rs256JWKJSON = """
        {"kty":"RSA",
         "n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ",
         "e":"AQAB",
         "d":"Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97IjlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46sui395IW_GO-pWJ1O0BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn439X0M_V51gfpRLI9JYanrC4D4qAdGcopV_0ZHHzQlBjudU2QvXt4ehNYTCBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLhBOneufuBiB4cS98l2SR_RQyGWSeWjnczT0QU91p1DhOVRuOopznQ"
        }
        """

    /// RFC 7515 A.3: the complete JWS Compact Serialization.
    static let es256JWS =
        "eyJhbGciOiJFUzI1NiJ9." + payload + "."
        + "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    /// RFC 7515 A.3.1: the EC public key as a JWK (the private `d` is left out; JWK ignores it anyway).
    static let es256JWKJSON = """
        {"kty":"EC",
         "crv":"P-256",
         "x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
         "y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
        }
        """

    /// The A.2 private key as PKCS #1 (`BEGIN RSA PRIVATE KEY`).
    static let rs256PKCS1PEM = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd/wWJcyQoTbji9k0
        l8W26mPddxHmfHQp+Vaw+4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL+yRT+SFd2lZS+pC
        gNMsD1W/YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb/7OMg0LOL+bSf63kpaSHSX
        ndS5z5rexMdbBYUsLA9e+KXBdQOS+UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uD
        Zlxvb3qCo5ZwKh9kG4LT6/I5IhlJH7aGhyxXFvUK+DWNmoudF8NAco9/h9iaGNj8
        q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQIDAQABAoIBABKucaRpzQorw35S
        bEUAVx8dYXUdZOlJcHtiWQ+dC6V8ljxAHj/PLyzTveyI5QO/xkObCyjIL303l2cf
        UhPu2MFaJdjVzqACXuOrLot/eSFvxjvqVidTtAZExqFRJ9mylUVAoLvhowVWmC1O
        n95fZCXxTUtxNEG1Xcc7m0rtzJKs45J+N/V9DP1edYH6USyPSWGp6wuA+KgHRnKK
        Vf9GRx80JQY7nVNkL17eHoTWEwga+lwi0FEoW9Y7lDtWXYmKBWhUE+U8PGxlJf8f
        40493HDw1WRQ/aSLoS4QTp3rn7gYgeHEvfJdkkf0UMhlknlo53M09EFPdadQ4TlU
        bjqKc50CgYEA4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH/5IB3jw3bcxGn6QLvnE
        tfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw/Py5PJdTJNPY8cQn7ouZ2KKDcmnPG
        BY5t7yLc1QlQ5xHdwW1VhvKn+nXqhJTBgIPgtldC+KDV5z+y2XDwGUcCgYEAuQPE
        fgmVtjL0Uyyx88GZFF1fOunH3+7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYs
        p1ZSe7zFYHj7C6ul7TjeLQeZD/YwD66t62wDmpe/HlB+TnBA+njbglfIsRLtXlnD
        zQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdcCgYAHAp9XcCSrn8wVkMVkKdb7
        DOX4IKjzdahm+ctDAJN4O/y7OW5FKebvUjdAIt2GuoTZ71iTG+7F0F+lP88jtjP4
        U4qe7VHoewl4MKOfXZKTe+YCS1XbNvfgwJ3Ltyl1OH9hWvu2yza7q+d5PCsDzqtm
        27kxuvULVeya+TEdAB1ijQKBgQCH/3r6YrVH/uCWGy6bzV1nGNOdjKc9tmkfOJmN
        54dxdixdpozCQ6U4OxZrsj3FcOhHBsqAHvX2uuYjagqvo3cOj1TRqNocX40omfCC
        Mx3bD1yPPf/6TI2XECva/ggqEY2mYzmIiA5LVVmc5nrybr+lssFKneeyxN2Wq93S
        0iJMdQKBgCGHewxzoa1r8ZMD0LETNrToK423K377UCYqXfg5XMclbrjPbEC3YI1Z
        NqMtuhdBJqUnBi6tjKMF+34Xf0CUN8ncuXGO2CAYvO8PdyCixHX52ybaDjy1FtCE
        6yUXjoKNXKvUm7MWGsAYH6f4IegOetN5NvmUMFStCSkh7ixZLkN1
        -----END RSA PRIVATE KEY-----
        """

    /// The A.2 private key as PKCS #8 (`BEGIN PRIVATE KEY`).
    static let rs256PKCS8PEM = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCh+BYK4uPJtGXO
        jS1lYmM2K5J9vinh8CR3/BYlzJChNuOL2TSXxbbqY913EeZ8dCn5VrD7io8ImtxL
        aYk8wTM/U+3QGbh3hCUv7JFP5IV3aVlL6kKA0ywPVb9ilE8TA5a8bpvfbr3SvaNn
        juygxmj3AbONv/s4yDQs4v5tJ/reSlpIdJed1LnPmt7Ex1sFhSwsD174pcF1A5L5
        ROjtZMEQxrZHYJqkeDrrnGya11UxMFBji4NmXG9veoKjlnAqH2QbgtPr8jkiGUkf
        toaHLFcW9Qr4NY2ai50Xw0Byj3+H2JoY2PyrZ62EWQwuz3WTOTY8BwNNb2BvniHg
        VFbK5emhAgMBAAECggEAEq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyW
        PEAeP88vLNO97IjlA7/GQ5sLKMgvfTeXZx9SE+7YwVol2NXOoAJe46sui395IW/G
        O+pWJ1O0BkTGoVEn2bKVRUCgu+GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzj
        kn439X0M/V51gfpRLI9JYanrC4D4qAdGcopV/0ZHHzQlBjudU2QvXt4ehNYTCBr6
        XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl/x/jTj3ccPDVZFD9pIuhLhBOneufuBiB
        4cS98l2SR/RQyGWSeWjnczT0QU91p1DhOVRuOopznQKBgQDgHMQQ60imZV1URk0K
        pLttoLhyt3SmqdEf/kgHePDdtzEafpAu+cS191R2JiuoF2yzWXnwFDcqGigp5BNr
        0AHQfD8/Lk8l1Mk09jxxCfui5nYooNyac8YFjm3vItzVCVDnEd3BbVWG8qf6deqE
        lMGAg+C2V0L4oNXnP7LZcPAZRwKBgQC5A8R+CZW2MvRTLLHzwZkUXV866cff7tx6
        kqa0finGG0KgeqlaZPxgCZnFp7AeAcCMtiynVlJ7vMVgePsLq6XtON4tB5kP9jAP
        rq3rbAOal78eUH5OcED6eNuCV8ixEu1eWcPNCS/l1OW1EnXUEoEHKl54Xrrz2uNw
        kgMTP1FZ1wKBgAcCn1dwJKufzBWQxWQp1vsM5fggqPN1qGb5y0MAk3g7/Ls5bkUp
        5u9SN0Ai3Ya6hNnvWJMb7sXQX6U/zyO2M/hTip7tUeh7CXgwo59dkpN75gJLVds2
        9+DAncu3KXU4f2Fa+7bLNrur53k8KwPOq2bbuTG69QtV7Jr5MR0AHWKNAoGBAIf/
        evpitUf+4JYbLpvNXWcY052Mpz22aR84mY3nh3F2LF2mjMJDpTg7FmuyPcVw6EcG
        yoAe9fa65iNqCq+jdw6PVNGo2hxfjSiZ8IIzHdsPXI89//pMjZcQK9r+CCoRjaZj
        OYiIDktVWZzmevJuv6WywUqd57LE3Zar3dLSIkx1AoGAIYd7DHOhrWvxkwPQsRM2
        tOgrjbcrfvtQJipd+DlcxyVuuM9sQLdgjVk2oy26F0EmpScGLq2MowX7fhd/QJQ3
        ydy5cY7YIBi87w93IKLEdfnbJtoOPLUW0ITrJReOgo1cq9SbsxYawBgfp/gh6A56
        03k2+ZQwVK0JKSHuLFkuQ3U=
        -----END PRIVATE KEY-----
        """

    /// The A.3 private key as SEC 1 (`BEGIN EC PRIVATE KEY`).
    static let es256SEC1PEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEII6bEJ5xkJi/mASH3x9dd+nLKWBuvtImO19XwhPfhPSyoAoGCCqGSM49
        AwEHoUQDQgAEf83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEXH8UTNG72b
        focs3+257rn0s2ldbqkLJK2KRiMohYjlrQ==
        -----END EC PRIVATE KEY-----
        """

    /// The A.3 private key as PKCS #8 (`BEGIN PRIVATE KEY`).
    static let es256PKCS8PEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgjpsQnnGQmL+YBIff
        H1136cspYG6+0iY7X1fCE9+E9LKhRANCAAR/zc4ncPbEXUGDy+5v20t7WAczNXvp
        7xO6z248e9FURcfxRM0bvZt+hyzf7bnuufSzaV1uqQskrYpGIyiFiOWt
        -----END PRIVATE KEY-----
        """

    /// A throwaway 1024-bit RSA key (`openssl genrsa -traditional 1024`): too small for RS256.
    static let rsa1024PEM = """
        -----BEGIN RSA PRIVATE KEY-----
        MIICWwIBAAKBgQCYmByNHXCqJ257axqlYv+A7ZPBYghE7G31lNNPOk1kO0g27ruF
        GMKROiY6BjzQyiiLaZ0VBA7Uz70VNZtdk8XrgzcIyozVpikZZ98KBt4LAhYvo4zy
        foQIFkQa9R2eCCHp8733NkcCmun3dGL/fk6p/ZAVtN/Tj3kMkxL+S2Fl4wIDAQAB
        AoGAQeZXVj4jnOhgl15e6JQDghuYFwkORy3QIyH9zBaCu8m6WzbotwdFZ9C0F5UA
        CK91qReYZi4VdaStpQ48pcIe0/ddNYOsRPm3IVEzrpaBGbgksD1Uou+revfTQFiB
        CXWKvdQzgPe/jmGRRZ8gxK7WsjEhvYjvJ4W22NvjBJqqEhkCQQDJZxY/8Vlmrg2o
        Lu6kRHdqCuKXLj+QmqGJ6TvsAxtqAhrSn3+OWlrGL5XdIJ3ENmBYIaRU4Nwc4SrU
        3rQ87O+tAkEAwfXR4Y8GSJQ1bx/SydnksrItZldoAcxAe/amvejBDxgeFWAo2EPd
        uEaTn8IP9sGQbLqkCfHiKC1KZVIEA9kdzwJAFrzrtyZhaIVIB2/dA3CzZqZ59IWF
        Kac7i51oZXnoU2yPaK4XMZQj4XIn4kI3bZqSAAE0U1zbnOsS8dt+z84UNQJAEGYd
        QanbCSXmwqd5JfHTQTyJVB7Nv2EqjpCTFnloYUNTv9DqgyZxx5PIBXjd6qoA8QBy
        wBiAW49AvAJMLpsbxwJAQLCVcTlpITmEa99HIkZR0WPROrs2BzyV+f5qU1iJ5lkY
        zS79k5ea9FnI1zj6NwR+9CGEiL2vF0IerZBzyWPEYQ==
        -----END RSA PRIVATE KEY-----
        """

    /// The modulus of `rsa1024PEM`, base64url.
    static let rsa1024Modulus =
        "mJgcjR1wqidue2sapWL_gO2TwWIIROxt9ZTTTzpNZDtINu67hRjCkTomOgY80Mooi2mdFQQO1M-9FTWbXZPF64M3CMqM1aYpGWffCgbeCwIWL6OM8n6ECBZEGvUdnggh6fO99zZHAprp93Ri_35Oqf2QFbTf0495DJMS_kthZeM"

    /// A throwaway P-256 key encrypted with the passphrase "test" (`openssl genpkey -aes-128-cbc`).
    static let encryptedPEM = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAgiMAM8ibn5BQICCAAw
        DAYIKoZIhvcNAgkFADAdBglghkgBZQMEAQIEEGadmOTpncLvmWBCFwWVp8EEgZDH
        iKP3kmKR0kybjkksMeYnwnZObStQ3emtoy6PYq5ZVnXUYrfUuO7M0kNaZEYtSAqm
        rXD/2IKorvbFRHDby6S4d82mOuKFYEpc3RozMFIAje84E9+6hblQ9/z9XEinVei+
        6lsaHvQm2gKBkWMfpF7DgOJ8h6CfvBQEIiYjb7M00fRNEr0SVYoAaU2ybmw8Pxw=
        -----END ENCRYPTED PRIVATE KEY-----
        """

    /// A throwaway Ed25519 key (`openssl genpkey -algorithm ED25519`): a key type we do not sign with.
    static let ed25519PEM = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEILK84S89zpHSGsonztQtIP5lrw5MSZzwnKKvsXgMxJG/
        -----END PRIVATE KEY-----
        """

    /// A throwaway P-384 key (`openssl ecparam -name secp384r1 -genkey`): a curve ES256 does not use.
    static let p384PEM = """
        -----BEGIN EC PRIVATE KEY-----
        MIGkAgEBBDDhq3eA1MwnX96hId+ozD8IGhd2DshQJFEXFEbJ8c7CwgmKeNnqLLxG
        M0IfbyUFdsygBwYFK4EEACKhZANiAARxVWL0WahbwNEQZ/unGZ1A4Mjw+1OPyDYs
        gsXOugNRu5pJuWk/6N5s8dAG8ZWy78uf3uk19Xb0LM+ZOP4E3Ue1Kdx0KpU1+ssV
        JbdPq7cI34U6BB9qewVA836QFdPCiOE=
        -----END EC PRIVATE KEY-----
        """

    /// Bytes from a hex string written in a test (spaces allowed); an odd digit count is a test bug.
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
        return stride(from: 0, to: digits.count - 1, by: 2).map { index in
            UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) ?? 0
        }
    }

    /// The three dot-separated parts of a JWS Compact Serialization: signing input and signature.
    static func split(_ jws: String) -> (signingInput: [UInt8], signature: [UInt8]) {
        let lastDot = jws.lastIndex(of: ".") ?? jws.endIndex
        let signature = Base64.urlDecode(String(jws[jws.index(after: lastDot)...])) ?? []
        return (Array(jws[..<lastDot].utf8), signature)
    }
}
