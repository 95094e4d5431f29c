-----BEGIN PRIVATE KEY-----
example-placeholder-not-a-real-key
-----END PRIVATE KEY-----
