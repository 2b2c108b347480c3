import FlickrProtocol

extension MethodCall {
    /// A required numeric argument, or `failure` when it is absent or not a number.
    func double(_ name: String, or failure: APIFailure) throws(APIFailure) -> Double {
        guard let v = string(name).flatMap(Double.init), v.isFinite else { throw failure }
        return v
    }

    /// A comma-separated list of ids.
    func list(_ name: String) -> [String] {
        (string(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
