import AuthHandlerHTTP

/// The pages a person chooses on: the sign-in picker, `GET /__/auth/signin` (HTTP-API.md §3.6).
struct PickerRoutes: RouteGroup {
    func addRoutes(to table: inout RouteTable) {
        table.add("GET", "/__/auth/signin", Self.picker)
        table.refuseOtherMethods(at: "/__/auth/signin", saying: "use GET: the picker is a page a browser opens")
    }

    /// The picker's parameters are checked as a start checks them before any page is shown.
    private static func picker(_ context: Route.Context) async -> ServerResponse {
        do {
            let choices = try context.flow.pickerChoices(context.request.queryItems)
            return ResponseRendering.secured(.html(SignInPickerPage.render(choices, audience: context.audience)))
        } catch {
            return ResponseRendering.error(error, accept: context.accept, audience: context.audience)
        }
    }
}
