# nvcc.sh - sourced by the test scripts that compile CUDA output.
#
# pw_find_nvcc: sets $nvcc to the first nvcc found on PATH, in
#   $CUDA_HOME/bin or in /usr/local/cuda/bin (CUDA's default prefix), or to
#   "" when there is none.
# pw_cuda_include: prints the directory that holds cuda_runtime.h, for host
#   C compilers, and fails when it cannot be found.  The directory is the
#   one nvcc itself reports (the INCLUDES line of `nvcc --dryrun`), so an
#   nvcc reached through a wrapper script or a symbolic link on PATH (such as
#   /usr/local/bin/nvcc) still names the toolkit's own headers.

pw_find_nvcc() {
    nvcc=""
    if command -v nvcc >/dev/null 2>&1; then
        nvcc=$(command -v nvcc)
    elif [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then
        nvcc=$CUDA_HOME/bin/nvcc
    elif [ -x /usr/local/cuda/bin/nvcc ]; then
        nvcc=/usr/local/cuda/bin/nvcc
    fi
}

pw_cuda_include() {
    _pw_dirs=$("$nvcc" --dryrun -c -x cu /dev/null 2>&1 |
        sed -n 's/^#\$ INCLUDES=//p' | tr -d '"' | tr ' ' '\n' |
        sed -n 's/^-I//p')
    _pw_real=$(readlink -f "$nvcc" 2>/dev/null || echo "$nvcc")
    for _pw_d in $_pw_dirs "$(dirname "$_pw_real")/../include" \
        "${CUDA_HOME:-/usr/local/cuda}/include" /usr/local/cuda/include; do
        if [ -f "$_pw_d/cuda_runtime.h" ]; then
            echo "$_pw_d"
            return 0
        fi
    done
    echo "nvcc.sh: cuda_runtime.h not found for $nvcc (looked in:" \
        $_pw_dirs "$(dirname "$_pw_real")/../include" \
        "${CUDA_HOME:-/usr/local/cuda}/include /usr/local/cuda/include)" >&2
    return 1
}
