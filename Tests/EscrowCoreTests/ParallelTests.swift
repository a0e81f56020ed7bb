import EscrowCore
import Testing

@Suite struct ParallelTests {
    @Test(arguments: [0, 1, 2, 7, 1000])
    func resultsComeBackInIndexOrder(count: Int) {
        #expect(Parallel.map(count) { $0 * $0 } == (0..<count).map { $0 * $0 })
        #expect(Parallel.map(count, concurrently: false) { $0 * $0 } == (0..<count).map { $0 * $0 })
    }
}
