/// Runs one measured body over repetitions, each with a fixture of its own, after warm-up runs
/// whose results are dropped.
///
/// Set-up and tear-down are never timed; the body times what the figure is about (usually with
/// `ContinuousClock`, which is monotonic) and returns it.
struct Sampler: Sendable {
    /// Measured repetitions per figure.
    let repetitions: Int
    /// Unmeasured runs before the first repetition.
    let warmUps: Int

    func collect<Fixture, Sample>(
        setUp: () async throws -> Fixture,
        body: (Fixture) async throws -> Sample,
        tearDown: (Fixture) -> Void
    ) async throws -> [Sample] {
        var samples: [Sample] = []
        samples.reserveCapacity(repetitions)
        for index in 0..<(warmUps + repetitions) {
            let fixture = try await setUp()
            defer { tearDown(fixture) }
            let sample = try await body(fixture)
            if index >= warmUps { samples.append(sample) }
        }
        return samples
    }
}

extension Duration {
    /// The duration in seconds, as a double.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
