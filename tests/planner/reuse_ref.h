/*
 * tests/planner/reuse_ref.h - the reference `reuse` of the tests (a copy
 * of the first implementation, which scans every stack candidate).
 */
#ifndef PLANWRAP_TESTS_REUSE_REF_H
#define PLANWRAP_TESTS_REUSE_REF_H

#include "planner/planner.h"

int ref_reuse(const plan_problem *pb, uint64_t *offsets, uint64_t *size);

#endif
