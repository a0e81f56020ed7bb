import Foundation

/// Threads of the escrow's own for module runs. A run interprets WebAssembly and blocks while the
/// module waits for the network, so it never runs on Swift's cooperative pool or on Dispatch's
/// (both about as wide as the machine has cores: blocked threads there would hold up, or be held
/// up by, everything else in the process).
///
/// A thread is started when a run finds none idle, up to `maximum`; later runs wait for one.
/// Threads stay, parked, for the next runs.
final class ModuleThreads: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [@Sendable () -> Void] = []
    private var idle = 0
    private var started = 0
    let maximum: Int

    init(maximum: Int) { self.maximum = maximum }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        if idle == 0 && started < maximum {
            started += 1
            let thread = Thread { [self] in work() }
            thread.name = "escrow.module"
            thread.start()
        } else {
            condition.signal()
        }
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

/// The executor a module's network requests run on: one thread of its own, so a request's
/// continuation never waits for a cooperative thread (a module run blocks its thread until it
/// has the answer). The requests themselves are NIO's, on its event loops; this thread only
/// resumes the code around them.
final class ModuleNetworkExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = ModuleNetworkExecutor()

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [self] in work() }
        thread.name = "escrow.module-network"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
