/*
 * import/shape.h - helpers and rules shared by ops.c, shape_nn.c,
 * shape_tensor.c and fold.c (internal to import/).
 */
#ifndef PLANWRAP_IMP_SHAPE_H
#define PLANWRAP_IMP_SHAPE_H

#include "imp.h"

imp_value *imp_req(imp_ctx *c, const imp_node *n, int i); /* or fails */
const char *imp_dims_str(imp_ctx *c, int rank, const int64_t *dims);
void imp_set_like(imp_ctx *c, imp_node *n, int i, const imp_value *v);
int imp_broadcast(imp_ctx *c, imp_value *const *vs, int nv, int64_t *out);
/* An int list from attribute `name` (opsets before `input_from`) or from
 * constant input `i`: count, or -1 when neither is given. */
int imp_ints_param(imp_ctx *c, const imp_node *n, const char *name,
                   int64_t input_from, int i, int64_t *out, int max);

/* shape_nn.c */
void imp_sh_conv(imp_ctx *c, imp_node *n);
void imp_sh_convtranspose(imp_ctx *c, imp_node *n);
void imp_sh_pool(imp_ctx *c, imp_node *n);
void imp_sh_global_pool(imp_ctx *c, imp_node *n);
void imp_sh_gemm(imp_ctx *c, imp_node *n);
void imp_sh_matmul(imp_ctx *c, imp_node *n);
void imp_sh_einsum(imp_ctx *c, imp_node *n);
void imp_sh_reduce(imp_ctx *c, imp_node *n);
void imp_sh_argmax(imp_ctx *c, imp_node *n);
void imp_sh_topk(imp_ctx *c, imp_node *n);
void imp_sh_resize(imp_ctx *c, imp_node *n);
/* shape_tensor.c */
void imp_sh_reshape(imp_ctx *c, imp_node *n);
void imp_sh_flatten(imp_ctx *c, imp_node *n);
void imp_sh_squeeze(imp_ctx *c, imp_node *n);
void imp_sh_unsqueeze(imp_ctx *c, imp_node *n);
void imp_sh_transpose(imp_ctx *c, imp_node *n);
void imp_sh_concat(imp_ctx *c, imp_node *n);
void imp_sh_split(imp_ctx *c, imp_node *n);
void imp_sh_slice(imp_ctx *c, imp_node *n);
void imp_sh_gather(imp_ctx *c, imp_node *n);
void imp_sh_scatternd(imp_ctx *c, imp_node *n);
void imp_sh_expand(imp_ctx *c, imp_node *n);
void imp_sh_gather_elements(imp_ctx *c, imp_node *n);
void imp_sh_gather_nd(imp_ctx *c, imp_node *n);
void imp_sh_depth_space(imp_ctx *c, imp_node *n);
void imp_sh_pad(imp_ctx *c, imp_node *n);
void imp_sh_tile(imp_ctx *c, imp_node *n);
void imp_sh_range(imp_ctx *c, imp_node *n);
void imp_sh_constantofshape(imp_ctx *c, imp_node *n);

/* Slice parameters normalised per axis (shape_tensor.c): start and step
 * of every axis of the input; out dims in *dims. */
void imp_slice_params(imp_ctx *c, const imp_node *n, int64_t *start,
                      int64_t *step, int64_t *dims);
/* Reduce axes as a bit mask (shape_nn.c). */
unsigned imp_reduce_mask(imp_ctx *c, const imp_node *n);
/* Conv/pool geometry (shape_nn.c): S spatial dims; kernel, strides,
 * pads (begin..., end...), dilations resolved (auto_pad included). */
typedef struct imp_geom {
    int s;
    int64_t kernel[IMP_MAX_RANK], strides[IMP_MAX_RANK], pads[2 * IMP_MAX_RANK],
        dil[IMP_MAX_RANK], outpad[IMP_MAX_RANK];
} imp_geom;
void imp_geometry(imp_ctx *c, const imp_node *n, imp_geom *g);

#endif /* PLANWRAP_IMP_SHAPE_H */
