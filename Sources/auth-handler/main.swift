import AuthHandler

print("auth-handler \(AuthHandlerVersion.string)")
