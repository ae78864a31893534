"""Calls an IpcBench server from another language and checks every reply.

    python3 echo_client.py grpc|grpc-stream TARGET STUBS_DIR   (TARGET: 127.0.0.1:PORT or unix:/PATH)
    python3 echo_client.py zmq tcp://127.0.0.1:PORT

gRPC goes through grpcio (gRPC's C core) with the stubs grpc_tools generates from echo.proto into
STUBS_DIR; ZeroMQ through pyzmq, a plain REQ socket. Prints "OK" and exits 0 when every payload
came back byte for byte; any failure raises and exits non-zero.
"""
import os
import sys

PAYLOADS = [b"", b"x", bytes(range(256)) * 4, os.urandom(100 * 1024)]
TIMEOUT_S = 10


def grpc_unary(target):
    import grpc
    import echo_pb2
    import echo_pb2_grpc
    with grpc.insecure_channel(target) as channel:
        stub = echo_pb2_grpc.EchoStub(channel)
        for payload in PAYLOADS:
            reply = stub.Call(echo_pb2.EchoMessage(payload=payload), timeout=TIMEOUT_S)
            assert reply.payload == payload, f"{len(payload)} B sent, {len(reply.payload)} B back"


def grpc_stream(target):
    import grpc
    import echo_pb2
    import echo_pb2_grpc
    with grpc.insecure_channel(target) as channel:
        stub = echo_pb2_grpc.EchoStub(channel)
        replies = stub.Stream(iter([echo_pb2.EchoMessage(payload=p) for p in PAYLOADS]), timeout=TIMEOUT_S)
        got = [reply.payload for reply in replies]
        assert got == PAYLOADS, f"{len(got)} replies to {len(PAYLOADS)} requests, or one differs"


def zmq_req(endpoint):
    import zmq
    context = zmq.Context()
    socket = context.socket(zmq.REQ)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, TIMEOUT_S * 1000)
    socket.setsockopt(zmq.SNDTIMEO, TIMEOUT_S * 1000)
    try:
        socket.connect(endpoint)
        for payload in PAYLOADS:
            socket.send(payload)
            reply = socket.recv()
            assert reply == payload, f"{len(payload)} B sent, {len(reply)} B back"
    finally:
        socket.close()
        context.term()


def main():
    kind, target = sys.argv[1], sys.argv[2]
    if kind.startswith("grpc"):
        sys.path.insert(0, sys.argv[3])
        (grpc_stream if kind == "grpc-stream" else grpc_unary)(target)
    elif kind == "zmq":
        zmq_req(target)
    else:
        raise SystemExit(f"unknown client kind {kind}")
    print("OK")


if __name__ == "__main__":
    main()
