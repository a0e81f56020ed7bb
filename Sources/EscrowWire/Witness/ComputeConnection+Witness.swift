import SwiftProtobuf

extension ComputeConnection {
    /// Asks the witness for the heads it holds for this host (identified by the connection's
    /// client certificate), oldest first, each checked (format and both signatures).
    ///
    /// - Throws: `RPCError.remote` with `NOT_A_WITNESS` when the server keeps no witness store,
    ///   `RPCError.invalidMessage` for an answer that is not a valid `WitnessState`, and the
    ///   connection's errors.
    public func witnessedHeads(deadline: Duration = .seconds(10)) async throws -> [WitnessedAuditHead] {
        var envelope = Escrow_V1_Envelope()
        envelope.witnessQuery = Escrow_V1_WitnessQuery()
        let reply = try await call(envelope, deadline: deadline)
        guard case .witnessState(let state) = reply.envelope.envelope.body else {
            throw RPCError.invalidMessage("the server answered a witness query with something other than a witness state")
        }
        do {
            return try state.heads.map { message throws(WitnessError) in try WitnessedAuditHead(message) }
        } catch {
            throw RPCError.invalidMessage("the witness's state: \(error)")
        }
    }

    /// Asks the witness to countersign `head`, which extends the head it holds at `previousSeq`
    /// (0 when none), whose entry hash here is `previousHash`.
    ///
    /// - Returns: the countersigned head, checked (format, both signatures, and that it is
    ///   `head`).
    /// - Throws: `RPCError.remote` with `WITNESS_REFUSED` (rollback, fork, another previous
    ///   hash), `NOT_A_WITNESS`, `BAD_REQUEST`; `RPCError.invalidMessage` for an answer that is
    ///   not a valid countersignature of `head`; the connection's errors.
    public func witness(_ head: SignedAuditHead, previousSeq: Int, previousHash: String,
                        deadline: Duration = .seconds(10)) async throws -> WitnessedAuditHead {
        var envelope = Escrow_V1_Envelope()
        envelope.witnessRequest = .with {
            $0.head = head.message
            $0.previousSeq = UInt64(max(0, previousSeq))
            $0.previousHash = previousHash
        }
        let reply = try await call(envelope, deadline: deadline)
        guard case .witnessReply(let answer) = reply.envelope.envelope.body else {
            throw RPCError.invalidMessage("the server answered a witness request with something other than a witness reply")
        }
        let witnessed: WitnessedAuditHead
        do {
            witnessed = try WitnessedAuditHead(answer.witnessed)
        } catch {
            throw RPCError.invalidMessage("the witness's countersignature: \(error)")
        }
        guard witnessed.head.seq == head.seq, witnessed.head.entryHash == head.entryHash, witnessed.head.hostKey == head.hostKey else {
            throw RPCError.invalidMessage("the witness countersigned seq \(witnessed.head.seq), not the head sent (seq \(head.seq))")
        }
        return witnessed
    }
}
