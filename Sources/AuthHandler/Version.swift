/// The version printed by `auth-handler --version`.
public enum AuthHandlerVersion {
    public static let string = "0.1.0"
}
