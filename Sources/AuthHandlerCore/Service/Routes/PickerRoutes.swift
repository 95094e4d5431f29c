import AuthHandlerAccounts
import AuthHandlerHTTP

/// The pages a person chooses on: the sign-in picker, `GET /__/auth/signin` (HTTP-API.md §3.6), and its e-mail entry's
/// forms, `POST /__/auth/signin/email`, with the accounts backend.
struct PickerRoutes: RouteGroup {
    static let emailPath = "/__/auth/signin/email"

    func addRoutes(to table: inout RouteTable) {
        table.add("GET", "/__/auth/signin", Self.picker)
        table.refuseOtherMethods(at: "/__/auth/signin", saying: "use GET: the picker is a page a browser opens")
        table.add("POST", Self.emailPath) { await PickerEmailRoutes.submit($0) }
        table.refuseOtherMethods(
            at: Self.emailPath, saying: "the sign-in page's e-mail forms post here; open /__/auth/signin instead")
        table.add("GET", PickerProviderRoutes.startPath) { await PickerProviderRoutes.start($0) }
        table.add("GET", PickerProviderRoutes.returnPath) { await PickerProviderRoutes.finish($0) }
        for path in [PickerProviderRoutes.startPath, PickerProviderRoutes.returnPath] {
            table.refuseOtherMethods(at: path, saying: "use GET: the picker's buttons and the provider open it")
        }
    }

    /// The picker's parameters are checked as a start checks them before any page is shown.
    private static func picker(_ context: Route.Context) async -> ServerResponse {
        do {
            let fields = context.request.queryItems
            let accounts = context.flow.backend as? AccountsBackend
            let offer = try context.flow.pickerOffer(
                fields, passwords: accounts?.engine.settings.passwordsEnabled == true)
            guard offer.email, let accounts else {
                return ResponseRendering.secured(
                    .html(SignInPickerPage.render(offer.choices, audience: context.audience)))
            }
            let screen = try PickerEmailRoutes.screen(fields)
            let form = PickerEmailRoutes.form(screen, fields: fields, accounts: accounts)
            return try PickerEmailRoutes.page(context, choices: offer.choices, form: form)
        } catch {
            return ResponseRendering.error(error, accept: context.accept, audience: context.audience)
        }
    }
}
