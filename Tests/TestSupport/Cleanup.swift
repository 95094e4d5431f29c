/// Runs `body`, then `cleanUp` whether `body` returned or threw: the `defer` an async clean-up cannot have.
package func withCleanup<T>(_ cleanUp: () async -> Void, _ body: () async throws -> T) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanUp()
        throw error
    }
    await cleanUp()
    return result
}
