# The llm-in-sandbox image: the CLI with its Python runtime, compiled module, preloaded snapshot
# and the reference package baked in, so the first call answers at once. docs/deploy.md.
#
#   docker build -t llm-in-sandbox .
#   docker run --rm llm-in-sandbox exec -- python3 -c 'print(6 * 7)'
#
# The binary comes from the `build` stage (the pinned Rust toolchain image) unless
# `--build-arg BINARY_FROM=prebuilt` takes a binary built beforehand on a bookworm host from
# deploy/docker/prebuilt/llm-in-sandbox (what CI does: it has just built it). The runtime
# stages are the same either way. Build with BuildKit (it skips the stage not used).
# No "# syntax=" line: that would make BuildKit fetch a frontend image.

ARG RUST_IMAGE=rust:1.95-slim-bookworm
ARG BASE_IMAGE=debian:bookworm-slim
ARG BINARY_FROM=build

FROM ${RUST_IMAGE} AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked \
    && strip -o /llm-in-sandbox target/release/llm-in-sandbox

FROM ${BASE_IMAGE} AS prebuilt
COPY deploy/docker/prebuilt/llm-in-sandbox /llm-in-sandbox

FROM ${BINARY_FROM} AS binary

# What the runtime needs: python3 and pip (setup fetches the runtime and the reference package
# with pip; episodes' `pip install` runs it), CA roots for HTTPS.
FROM ${BASE_IMAGE} AS base
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates python3 python3-pip \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --user-group --home-dir /tmp --no-create-home \
        --shell /usr/sbin/nologin sandbox
COPY --from=binary /llm-in-sandbox /usr/local/bin/llm-in-sandbox
# The cache is read-only at run time: episodes' `pip install` keeps its downloads under /tmp.
ENV LLM_IN_SANDBOX_CACHE=/opt/llm-in-sandbox/cache \
    LLM_IN_SANDBOX_PACKAGES_CACHE=/tmp/llm-in-sandbox-packages \
    HOME=/tmp \
    TMPDIR=/tmp

# `setup` once, at build time: download and check the runtime, compile it for this CPU family,
# make the preloaded snapshot, fetch the reference package (~3 minutes, ~3 GiB of memory).
# deploy/docker/ca/ may hold extra CA certificates (*.crt) for a proxy that intercepts HTTPS
# during the build; they stay in this stage and never reach the image. The C toolchain needs
# npm and is left out of the image (`cc` in a sandbox then says so).
FROM base AS setup
COPY deploy/docker/ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    LLM_IN_SANDBOX_C_TOOLCHAIN=off \
    LLM_IN_SANDBOX_PACKAGES_CACHE=
RUN llm-in-sandbox setup

FROM base
COPY --from=setup --chown=10001:10001 /opt/llm-in-sandbox/cache /opt/llm-in-sandbox/cache
USER 10001:10001
WORKDIR /tmp
EXPOSE 8080
# For `serve --bind 0.0.0.0:8080` (the port the recipes use); other commands ignore it.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=2)"]
ENTRYPOINT ["llm-in-sandbox"]
CMD ["--help"]
