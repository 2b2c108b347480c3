import FlickrProtocol

extension MethodCall {
    /// Four whole-number coordinates (a note or person box), or `failure`.
    func box(_ names: [String], or failure: APIFailure) throws(APIFailure) -> [Int] {
        var out: [Int] = []
        for name in names {
            guard let v = int(name), v >= 0 else { throw failure }
            out.append(v)
        }
        return out
    }
}
