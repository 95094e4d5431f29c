import AuthHandler

/// The fake identity provider (issue 3). Placeholder namespace until it lands.
public enum FakeIdPInfo {
    public static let name = "fake-idp"
}
