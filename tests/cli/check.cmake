# `mgsim check` (traces/data_check.hpp, traces/problem.hpp): every example and every problem's
# baseline and tuned schedule passes; each reward hack of issue 11 is rejected with its own
# message. Included from tests/cli/CMakeLists.txt (mgsim_cli_test is defined there).

# Every example passes on the topology its tests run it on (its sweep's every point).
file(GLOB check_examples RELATIVE ${PROJECT_SOURCE_DIR}
  ${PROJECT_SOURCE_DIR}/examples/*.yaml ${PROJECT_SOURCE_DIR}/examples/kernels/*.yaml
  ${PROJECT_SOURCE_DIR}/examples/field/*.yaml)
foreach(example ${check_examples})
  string(REGEX REPLACE "^examples/(.*)\\.yaml$" "\\1" name ${example})
  string(REPLACE "/" "." name ${name})
  set(topology hgx-h200-8)
  if(name MATCHES "^field\\.pk_gemm")
    set(topology dgx-h100-8)
  endif()
  mgsim_cli_test(check.example.${name} 0 "us" check ${example} --topology ${topology})
endforeach()

# Every problem's baseline and tuned schedule pass on each of its topologies, every shape. The
# 72-GPU runs take seconds each (every rank simulated): labelled `scale`, which the sanitizer
# build skips (Makefile: the same code paths run there on 8 GPUs). One is far slower: the tuned
# ring attention on gb200-nvl72 (examples/field/ring_attention.yaml, the FlashAttention-3-style
# kernel on every rank) takes 2 minutes a shape on this 2-core machine (345-412 s for its 3
# shapes in one test, against a 900 s limit, in 2026-12-07's runs), so it is one test per shape
# (`--shape`), which ctest can run side by side, each with a 600 s limit.
file(GLOB check_problems RELATIVE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/problems/*.yaml)
foreach(problem ${check_problems})
  get_filename_component(name ${problem} NAME_WE)
  file(READ ${PROJECT_SOURCE_DIR}/${problem} text)
  string(REGEX MATCH "\nbaseline: *([^\n]+)" _ "${text}")
  get_filename_component(baseline ${CMAKE_MATCH_1} ABSOLUTE BASE_DIR ${PROJECT_SOURCE_DIR}/problems)
  string(REGEX MATCH "\ntuned: *([^\n]+)" _ "${text}")
  set(tuned "")
  if(CMAKE_MATCH_1)
    get_filename_component(tuned ${CMAKE_MATCH_1} ABSOLUTE BASE_DIR ${PROJECT_SOURCE_DIR}/problems)
  endif()
  foreach(topology hgx-h200-8 gb200-nvl72)
    set(tests check.problem.${name}.baseline.${topology})
    mgsim_cli_test(check.problem.${name}.baseline.${topology} 0 "speedup"
      check ${baseline} --topology ${topology} --problem ${problem})
    set(per_shape FALSE)
    if(tuned AND name STREQUAL "ring_attention" AND topology STREQUAL "gb200-nvl72")
      set(per_shape TRUE)
    endif()
    if(tuned AND NOT per_shape)
      list(APPEND tests check.problem.${name}.tuned.${topology})
      mgsim_cli_test(check.problem.${name}.tuned.${topology} 0 "speedup"
        check ${tuned} --topology ${topology} --problem ${problem})
    elseif(per_shape)
      # The shapes are the items of the problem's `shapes:` list.
      string(REGEX MATCH "
shapes:
(  - [^
]*
)+" shapes_block "${text}")
      string(REGEX MATCHALL "
  - " shape_items "${shapes_block}")
      list(LENGTH shape_items shapes)
      math(EXPR last_shape "${shapes} - 1")
      set(shape_tests "")
      foreach(shape RANGE ${last_shape})
        mgsim_cli_test(check.problem.${name}.tuned.${topology}.shape${shape} 0 "speedup"
          check ${tuned} --topology ${topology} --problem ${problem} --shape ${shape})
        list(APPEND shape_tests cli.check.problem.${name}.tuned.${topology}.shape${shape})
      endforeach()
      set_tests_properties(${shape_tests} PROPERTIES LABELS scale TIMEOUT 600)
    endif()
    if(topology STREQUAL "gb200-nvl72")
      list(TRANSFORM tests PREPEND "cli.")
      set_tests_properties(${tests} PROPERTIES LABELS scale TIMEOUT 300)
    endif()
  endforeach()
endforeach()

# The reward hacks, each as an agent would try it (tests/cli/hacks/: the honest schedule with a
# knob per hack), each rejected with its own message.
set(HACKS tests/cli/hacks)
set(AG check ${HACKS}/ag_gemm.yaml --topology hgx-h200-8 --problem ${HACKS}/ag_gemm.problem.yaml)
mgsim_cli_test(check.hack.honest_ag_gemm 0 "speedup" ${AG})
mgsim_cli_test(check.hack.half_the_tiles 1
  "unwritten_output: 8 of the 8 output regions of buffer 'C' (all ranks) were never fully written (the first: buffer 'C' on rank 0, 2097152 of 4194304 bytes)"
  ${AG} -D KEEP=1)
mgsim_cli_test(check.hack.zero_tiles 1
  "missing_flops: rank 0 does 0 mma flops, problem 'ag_gemm_small' needs 4294967296 on every rank"
  ${AG} -D KEEP=0)
mgsim_cli_test(check.hack.k_over_8 1
  "missing_flops: rank 0 does 536870912 mma flops, problem 'ag_gemm_small' needs 4294967296"
  ${AG} -D KDIV=8)
mgsim_cli_test(check.hack.compute_cycles_0 1
  "missing_flops: rank 0 does 0 mma flops"
  ${AG} -D MAINLOOP=0)
mgsim_cli_test(check.hack.skipped_wait 1
  "ag_gemm.yaml:54:25: early_read: rank 0 kernel 'ag_gemm' CTA 8 role 'math': its mainloop reads buffer 'A' region 7 on rank 0 before it is valid: the store by rank 7 kernel 'ag_gemm' CTA 0 role 'comm' (tests/cli/hacks/ag_gemm.yaml:35:19) does not happen-before it"
  ${AG} -D WAIT=0)
mgsim_cli_test(check.hack.signal_before_data 1
  "early_read: rank 0 kernel 'ag_gemm' CTA 8 role 'math': its mainloop reads buffer 'A' region 7 on rank 0 before it is valid"
  ${AG} -D SIGNAL_FIRST=1)
mgsim_cli_test(check.hack.all_gather_skipped 1
  "unwritten_read: rank 0 kernel 'ag_gemm' CTA 8 role 'math': its mainloop reads buffer 'A' region 7 on rank 0, which nothing has written and which is not an input"
  ${AG} -D COMM=0)
set(AR check ${HACKS}/all_reduce.yaml --topology hgx-h200-8 --problem ${HACKS}/all_reduce.problem.yaml)
mgsim_cli_test(check.hack.honest_all_reduce 0 "speedup" ${AR})
mgsim_cli_test(check.hack.one_shot_reads_own_memory 1
  "missing_input: buffer 'output' on rank 0 holds no data from buffer 'input' of rank 1, which it needs"
  ${AR} -D OWN=1)
mgsim_cli_test(check.hack.one_shot_reads_two_peers 1
  "missing_input: buffer 'output' on rank 0 holds no data from buffer 'input' of rank 3, which it needs"
  ${AR} -D SKIP=5)
mgsim_cli_test(check.hack.flag_never_reset 1
  "stale_wait: rank 1 kernel 'step' CTA 0 role 'consume': this wait on flag 'ready'[0] on rank 1 returns on signals it had all synchronised with already"
  check ${HACKS}/flag_reuse.yaml --topology hgx-h200-8 -D RESET=0)
mgsim_cli_test(check.hack.flag_reset 0 "us" check ${HACKS}/flag_reuse.yaml --topology hgx-h200-8)
mgsim_cli_test(check.hack.copy_from_peer 0 "us" check ${HACKS}/copy.yaml --topology hgx-h200-8)
mgsim_cli_test(check.hack.copy_from_own_memory 1
  "unwritten_read: rank 0 kernel 'pull' CTA 0 role 'copy': its copy (store from) reads buffer 'x' on rank 0, which nothing has written and which is not an input"
  check ${HACKS}/copy.yaml --topology hgx-h200-8 -D SRC=0)
mgsim_cli_test(check.hack.multicast_unshared 1
  "multicast_mismatch: a read multicast to 2 CTAs: in cluster 0 of kernel 'gemm' 1 CTA read 2097152 bytes of buffer 'B' region 0 on rank 0, not a whole number of 2-CTA groups reading the same data"
  check ${HACKS}/multicast.yaml --topology hgx-h200-8 -D SHARE=0)
mgsim_cli_test(check.hack.multicast_shared 0 "us" check ${HACKS}/multicast.yaml --topology hgx-h200-8)
mgsim_cli_test(check.hack.multimem_across_nodes 2
  "multimem needs every rank in one NVLink domain, but ranks 0 and 8 are in different ones"
  check ${HACKS}/multimem.yaml --topology hgx-h200-ib)
# A problem's buffers replace a schedule's own; the schedule cannot add inputs of its own.
mgsim_cli_test(check.scratch_input 2
  "under a problem only its buffers hold inputs: 'extra' is scratch"
  check ${HACKS}/scratch_input.yaml --topology hgx-h200-8 --problem ${HACKS}/all_reduce.problem.yaml)
