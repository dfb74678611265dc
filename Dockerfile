# syntax=docker/dockerfile:1
# Loopline's CPU image: every deployable is `loopline <command>` (k8s/base sets the command).
# Two stages: the first builds a virtual environment from wheels, the second copies only that
# environment onto a slim base with no compiler, and runs it as an unprivileged user.
# The base is pinned to an exact tag; pin its digest too where your registry mirrors it
# (`FROM python:3.11.14-slim-trixie@sha256:...`, see k8s/README.md).
ARG PYTHON_IMAGE=python:3.11.14-slim-trixie

FROM ${PYTHON_IMAGE} AS build
# The CPU build of torch: the default wheel on the package index carries CUDA libraries (GBs).
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/loopline
ENV PATH=/opt/loopline/bin:$PATH
WORKDIR /src
COPY constraints.txt ./
RUN pip install --index-url "${TORCH_INDEX_URL}" "torch==2.13.0"
COPY pyproject.toml README.md ./
COPY schemas schemas
COPY adapters adapters
COPY engine engine
COPY envs envs
COPY bridge bridge
COPY training training
COPY workflows workflows
COPY loopline loopline
RUN pip install -c constraints.txt . && loopline --help > /dev/null

FROM ${PYTHON_IMAGE}
LABEL org.opencontainers.image.title="loopline" \
      org.opencontainers.image.description="Loopline deployables: bridge, stream worker, workflow worker, policy server" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 loopline \
    && useradd --system --uid 10001 --gid loopline --home-dir /var/lib/loopline --create-home loopline
COPY --from=build /opt/loopline /opt/loopline
# State and caches live on mounted volumes: the root filesystem can stay read-only.
ENV PATH=/opt/loopline/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOME=/var/lib/loopline \
    LOOPLINE_STATE_DIR=/var/lib/loopline/state \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1
WORKDIR /var/lib/loopline
USER 10001:10001
ENTRYPOINT ["loopline"]
CMD ["--help"]
