import EscrowCore
import EscrowWire
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import GRPCProtobuf

// The gRPC Swift 2 peer of our compute RPC, for the side-by-side figures (group "grpc", issue 6).
// No protoc codegen: one unary method, registered by hand with `RPCRouter`, whose messages are the
// SwiftProtobuf types generated for our own protocol (Proto/escrow.proto), serialized by
// GRPCProtobuf. The handler does what `ServerConnectionHandler` does for a compute request.

/// The service `escrow.v1.Compute` with its one method `Compute` (unary): runs a catalog function
/// over the request's input frame and answers with its output frame.
struct GRPCComputeService: RegistrableRPCService {
    static let method = MethodDescriptor(fullyQualifiedService: "escrow.v1.Compute", method: "Compute", type: .unary)

    let catalog: FunctionCatalog

    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        let catalog = self.catalog
        router.registerHandler(
            forMethod: Self.method,
            deserializer: ProtobufDeserializer<Escrow_V1_ComputeRequest>(),
            serializer: ProtobufSerializer<Escrow_V1_ComputeResponse>()
        ) { request, _ in
            let single = try await ServerRequest(stream: request)
            let response = try await Self.compute(single.message, catalog: catalog)
            return StreamingServerResponse(single: ServerResponse(message: response))
        }
    }

    /// The same steps as our server's compute request: look the function up, check its version and
    /// digest, decode and check the input frame, run the function, encode its output.
    static func compute(_ request: Escrow_V1_ComputeRequest, catalog: FunctionCatalog) async throws -> Escrow_V1_ComputeResponse {
        let function: RegisteredFunction
        do {
            function = try catalog.function(request.functionID)
        } catch {
            throw RPCError(code: .notFound, message: "\(error)")
        }
        let descriptor = function.descriptor
        guard request.codeDigest == descriptor.codeDigest, request.functionVersion == Int64(descriptor.version) else {
            throw RPCError(code: .failedPrecondition,
                           message: "this server runs \(descriptor.id)@\(descriptor.version) with digest \(descriptor.codeDigest)")
        }
        let input: Frame
        do {
            input = try Frame(request.input)
        } catch {
            throw RPCError(code: .invalidArgument, message: "input frame: \(error)")
        }
        let clock = ContinuousClock()
        let started = clock.now
        let output: Frame
        do {
            output = try await function(input, context: ComputeContext(parameters: ComputeParameters(request.parameters)))
        } catch is CancellationError {
            throw RPCError(code: .cancelled, message: "the call was cancelled")
        } catch {
            throw RPCError(code: .internalError, message: "\(error)")
        }
        let elapsed = (clock.now - started).components
        var response = Escrow_V1_ComputeResponse()
        response.output = Escrow_V1_Frame(output)
        response.computeMicros = UInt64(max(0, elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000))
        return response
    }
}

/// The client side: builds the same `ComputeRequest` our `ComputeConnection.compute` sends and
/// decodes the output frame of the response, over one `GRPCClient`.
struct GRPCComputeClient: Sendable {
    let client: GRPCClient<HTTP2ClientTransport.Posix>
    /// The largest message either way (gRPC's default is 4 MiB; the 16 MB call needs more).
    let maximumMessageBytes: Int

    func compute(_ function: FunctionDescriptor, input: Frame, parameters: ComputeParameters,
                 deadline: Duration) async throws -> Frame {
        var request = Escrow_V1_ComputeRequest()
        request.functionID = function.id
        request.functionVersion = Int64(function.version)
        request.codeDigest = function.codeDigest
        request.input = Escrow_V1_Frame(input)
        request.parameters = parameters.values
        request.deadlineMs = UInt64(max(1, deadline.components.seconds * 1000 + deadline.components.attoseconds / 1_000_000_000_000_000))
        var options = CallOptions.defaults
        options.timeout = deadline
        options.maxRequestMessageBytes = maximumMessageBytes
        options.maxResponseMessageBytes = maximumMessageBytes
        let response = try await client.unary(
            request: ClientRequest(message: request),
            descriptor: GRPCComputeService.method,
            serializer: ProtobufSerializer<Escrow_V1_ComputeRequest>(),
            deserializer: ProtobufDeserializer<Escrow_V1_ComputeResponse>(),
            options: options
        ) { response in
            try response.message
        }
        return try Frame(response.output)
    }
}
