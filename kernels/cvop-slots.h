/* gst-cuda-vision: the operators (cvop.h) of the algorithms whose frames
 * share nothing but the info: every slot holds what one frame in flight
 * needs (its scratch, its uploads, its results), made for the info at
 * create and grown at a submit into that slot; slots never share memory,
 * so frames of different slots may run at once on different CUDA streams.
 * Internal header of both backends (C and CUDA C++).
 *
 * An algorithm writes its slot's functions:
 *   CvStatus xxx_slot_create (const void *info, void **slot);
 *   CvStatus xxx_slot_submit (void *slot, const CvFrame *, const void *,
 *       const CvExec *);
 *   const void *xxx_slot_results (void *slot);
 *   void xxx_slot_destroy (void *slot);
 * and CV_OPS_FROM_SLOTS (cv_xxx_cpu_ops, "xxx-cpu", xxx_slot) defines its
 * operator table from them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_OP_SLOTS_H
#define CV_OP_SLOTS_H

#include <stdlib.h>

#include "cvop.h"

typedef struct
{
  int n_slots;
  void **slot;
  void (*destroy_slot) (void *slot);
} CvSlotOp;

static inline void
cv_slot_op_destroy (void *op)
{
  CvSlotOp *o = (CvSlotOp *) op;
  int i;

  if (!o)
    return;
  for (i = 0; o->slot && i < o->n_slots; i++)
    if (o->slot[i])
      o->destroy_slot (o->slot[i]);
  free (o->slot);
  free (o);
}

/* every slot made now: a slot that cannot be made fails the create */
static inline CvStatus
cv_slot_op_create (const void *info, int max_slots, void **op,
    CvStatus (*create_slot) (const void *, void **),
    void (*destroy_slot) (void *))
{
  CvSlotOp *o;
  CvStatus st = CV_OK;
  int i;

  if (!op)
    return CV_ERROR_INVALID_ARGUMENT;
  *op = NULL;
  if (max_slots < 1 || max_slots > CV_OP_MAX_SLOTS)
    return CV_ERROR_INVALID_ARGUMENT;
  o = (CvSlotOp *) calloc (1, sizeof (CvSlotOp));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->destroy_slot = destroy_slot;
  o->slot = (void **) calloc ((size_t) max_slots, sizeof (void *));
  if (!o->slot) {
    free (o);
    return CV_ERROR_NO_MEMORY;
  }
  o->n_slots = max_slots;
  for (i = 0; i < max_slots && st == CV_OK; i++)
    st = create_slot (info, &o->slot[i]);
  if (st != CV_OK) {
    cv_slot_op_destroy (o);
    return st;
  }
  *op = o;
  return CV_OK;
}

/* the slot's workspace, NULL for a NULL operator or a slot out of range */
static inline void *
cv_slot_op_get (void *op, int slot)
{
  CvSlotOp *o = (CvSlotOp *) op;

  return o && slot >= 0 && slot < o->n_slots ? o->slot[slot] : NULL;
}

#define CV_OPS_FROM_SLOTS(table, name, prefix) \
static CvStatus \
prefix ## _op_create (const void *info, int max_slots, void **op) \
{ \
  return cv_slot_op_create (info, max_slots, op, prefix ## _create, \
      prefix ## _destroy); \
} \
static CvStatus \
prefix ## _op_submit (void *op, int slot, const CvFrame * frame, \
    const void *params, const CvExec * exec) \
{ \
  void *s = cv_slot_op_get (op, slot); \
  return s ? prefix ## _submit (s, frame, params, exec) : \
      CV_ERROR_INVALID_ARGUMENT; \
} \
static const void * \
prefix ## _op_results (void *op, int slot) \
{ \
  void *s = cv_slot_op_get (op, slot); \
  return s ? prefix ## _results (s) : NULL; \
} \
CV_OPS_EXTERN const CvOps table = { \
  name, prefix ## _op_create, prefix ## _op_submit, prefix ## _op_results, \
  cv_slot_op_destroy \
}

#ifdef __cplusplus
#define CV_OPS_EXTERN extern "C"
#else
#define CV_OPS_EXTERN
#endif

#endif /* CV_OP_SLOTS_H */
