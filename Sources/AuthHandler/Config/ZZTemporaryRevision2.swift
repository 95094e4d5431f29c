// Stand-ins until the config keys land; removed at the merge.
extension AuthHandlerConfig {
    var stateKey: SecretReference? { nil }
    var previousStateKeys: [SecretReference] { [] }
    var requireResultChallenge: Bool { true }
}
