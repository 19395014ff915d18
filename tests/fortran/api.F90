!
! api.F90 -- the Fortran bindings' API test (module collio), run at 1 and 3
! ranks through scripts/mpirun.
!
! One program, both kinds of MPI handles: module api_int calls every
! binding with `use mpi` INTEGER communicators, module api_f08 with
! `use mpi_f08` type(MPI_Comm) / type(MPI_Datatype). Each checks round
! trips (write, then read back, against the 0-based global index as the
! value), the constants, names, the option and statistics catalogue
! against include/collio.h, hints from every source (text, integers,
! logicals, lists, MPI_Info of both kinds, COLLIO_HINTS) read back from
! the plan, what hints change (statistics against counts computed here),
! and that bad arguments give the documented code on every rank (an
! MPI_Allreduce of min and max of the code). Prints "N passed, M failed"
! on rank 0; exit status 1 if any rank failed a check.
!
module api_checks
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: check, passed, failed, tmpfile, remove_file, set_env, unset_env
  integer, save :: passed = 0, failed = 0
  ! The values of hints multiphase.exchange and replicas.policy in the
  ! order docs/options.md lists them (the stats of the same keys hold them)
  integer, parameter, public :: EX_AUTO = 0, EX_HYPERCUBE = 1, EX_DIRECT = 2, &
                                EX_NODE_DIRECT = 3, EX_NODE_HYPERCUBE = 4, EX_COUNT = 5
  integer, parameter, public :: RP_IDG = 2, RP_DOMAIN = 5, RP_COUNT = 6

  interface
    function c_setenv(name, value, overwrite) bind(C, name="setenv") result(rc)
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*), value(*)
      integer(c_int), value :: overwrite
      integer(c_int) :: rc
    end function c_setenv

    function c_unsetenv(name) bind(C, name="unsetenv") result(rc)
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: rc
    end function c_unsetenv
  end interface
contains
  ! The process's environment (POSIX setenv / unsetenv): COLLIO_HINTS.
  subroutine set_env(name, value)
    character(len=*), intent(in) :: name, value
    integer(c_int) :: rc
    rc = c_setenv(name//c_null_char, value//c_null_char, 1_c_int)
  end subroutine set_env

  subroutine unset_env(name)
    character(len=*), intent(in) :: name
    integer(c_int) :: rc
    rc = c_unsetenv(name//c_null_char)
  end subroutine unset_env

  subroutine check(rank, cond, what)
    integer, intent(in) :: rank
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (cond) then
      passed = passed + 1
    else
      failed = failed + 1
      print '(a, i0, a, a)', "FAIL rank ", rank, ": ", what
    end if
  end subroutine check

  ! $COLLIO_TEST_TMPDIR (or /tmp) / fortran-api-npP-TAG.bin
  function tmpfile(nranks, tag) result(p)
    integer, intent(in) :: nranks
    character(len=*), intent(in) :: tag
    character(len=:), allocatable :: p
    character(len=1024) :: dir
    character(len=16) :: np
    integer :: st
    call get_environment_variable("COLLIO_TEST_TMPDIR", dir, status=st)
    if (st /= 0 .or. len_trim(dir) == 0) dir = "/tmp"
    write (np, '(i0)') nranks
    p = trim(dir)//"/fortran-api-np"//trim(np)//"-"//tag//".bin"
  end function tmpfile

  subroutine remove_file(path)
    character(len=*), intent(in) :: path
    integer :: u, st
    open (newunit=u, file=path, status="old", iostat=st)
    if (st == 0) close (u, status="delete")
  end subroutine remove_file
end module api_checks

! ------------------------------------------------- use mpi: INTEGER handles
module api_int
  use, intrinsic :: iso_c_binding
  use mpi
  use collio
  use api_checks
  implicit none
  private
  public :: run_int
  integer :: rank, nranks
contains
  ! rc is `want` on every rank
  subroutine check_all(rc, want, what)
    integer, intent(in) :: rc, want
    character(len=*), intent(in) :: what
    integer :: lo, hi, ierr
    call MPI_Allreduce(rc, lo, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(rc, hi, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    call check(rank, lo == want .and. hi == want, what//": "//collio_strerror(rc)// &
               " -- "//collio_last_error())
  end subroutine check_all

  subroutine run_int()
    type(collio_layout) :: l, lg, ld
    type(collio_plan) :: p
    type(collio_file) :: f
    type(collio_hints) :: h, ph
    type(collio_file_options) :: fo
    type(collio_stats) :: st
    integer(c_int64_t), allocatable, target :: buf(:), back(:), gbuf(:), idx(:)
    logical, allocatable :: owned(:)
    integer(c_int64_t) :: k, n, nx, lo, hi, nper
    integer :: rc, ierr, i, dtype
    real(c_double) :: v
    character(len=:), allocatable :: path

    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    call check(rank, collio_fortran_check_types() == 1, "bind(C) types match the C structs")

    ! constants and names
    call check(rank, collio_strerror(COLLIO_OK) == "success", "strerror(OK)")
    call check(rank, collio_strerror(COLLIO_ERR_ARG) == "invalid argument", "strerror(ARG)")
    call check(rank, collio_strerror(COLLIO_ERR_STATE) == "object used in the wrong state", &
               "strerror(STATE)")
    call check(rank, collio_strerror(COLLIO_ERR__COUNT) == "unknown collio error code", &
               "strerror(COUNT)")
    call check(rank, collio_option_value_name("multiphase.exchange", EX_DIRECT) == "direct", &
               "exchange name")
    call check(rank, collio_option_value_name("multiphase.exchange", EX_COUNT) == "", &
               "exchange name out")
    call check(rank, collio_option_value("multiphase.exchange", "node-hypercube") == &
               EX_NODE_HYPERCUBE, "exchange from name")
    call check(rank, collio_option_value("multiphase.exchange", "nope") == -1, &
               "exchange from bad name")
    call check(rank, collio_option_value_name("replicas.policy", RP_IDG) == "idg", &
               "replicas name")
    call check(rank, collio_option_value("replicas.policy", "domain") == RP_DOMAIN, &
               "replicas from name")
    call check(rank, collio_option_value_name("replicas.policy", RP_COUNT) == "", &
               "replicas name out")
    call check(rank, collio_option_value_name("multiphase.phases", 0) == "", &
               "an int option has no value names")
    call check(rank, collio_strategy_count() >= 6, "strategy count")
    do i = 0, collio_strategy_count() - 1
      call check(rank, len(collio_strategy_name(i)) > 0 .and. &
                 len(collio_strategy_summary(collio_strategy_name(i))) > 0, "strategy names")
    end do
    call check(rank, collio_strategy_name(collio_strategy_count()) == "", "strategy name out")
    call check(rank, collio_strategy_is_canonical("multiphase") == 1, "multiphase canonical")
    call check(rank, collio_strategy_is_canonical("block") == 0, "block not canonical")
    call check(rank, collio_strategy_is_canonical("nope") == -1, "unknown strategy")

    ! bad arguments: the documented code on every rank
    rc = collio_layout_block_cyclic(MPI_COMM_WORLD, -1_c_int64_t, 7_c_int64_t, 8, l)
    call check_all(rc, COLLIO_ERR_ARG, "block_cyclic nx = -1")
    call check(rank, len(collio_last_error()) > 0, "last_error after a failure")
    call check(rank, .not. c_associated(l%ptr), "no layout after a failure")
    rc = collio_layout_block_cyclic(MPI_COMM_WORLD, 100_c_int64_t, 0_c_int64_t, 8, l)
    call check_all(rc, COLLIO_ERR_ARG, "block_cyclic bx = 0")
    rc = collio_layout_block_cyclic(MPI_COMM_WORLD, 100_c_int64_t, 7_c_int64_t, 0, l)
    call check_all(rc, COLLIO_ERR_ARG, "block_cyclic esize = 0")
    rc = collio_layout_block_cyclic(MPI_COMM_WORLD, 100_c_int64_t + rank, 7_c_int64_t, 8, l)
    if (nranks > 1) call check_all(rc, COLLIO_ERR_MISMATCH, "block_cyclic nx differs")
    call collio_layout_free(l)

    ! a block-cyclic vector of int64: value = global index
    nx = 1000
    rc = collio_layout_block_cyclic(MPI_COMM_WORLD, nx, 7_c_int64_t, 8, l)
    call check_all(rc, COLLIO_OK, "block_cyclic")
    n = collio_layout_local_count(l)
    call check(rank, collio_layout_global_count(l) == nx, "global count")
    call check(rank, collio_layout_esize(l) == 8, "esize")
    call check(rank, collio_layout_buffer_bytes(l) == 8 * n, "buffer bytes")
    call check(rank, collio_layout_global_index(l, n) == -1, "global index out of range")
    allocate (buf(n), back(n))
    do k = 1, n
      buf(k) = collio_layout_global_index(l, k - 1)
    end do
    if (n > 0) call check(rank, buf(1) == 7 * rank, "first global index")

    call catalogue()
    call hints_api()
    call hints_plans(l)

    ! the plan of the round trip below: subgroup, groups of 2, inner
    ! multiphase -- by hints, read back from the plan
    rc = collio_hints_create(h)
    rc = collio_hints_set(h, "subgroup.inner", "multiphase")
    call check_all(rc, COLLIO_OK, "hints_set subgroup.inner")
    rc = collio_hints_set(h, "subgroup.group", 2)
    call check_all(rc, COLLIO_OK, "hints_set subgroup.group (integer)")
    rc = collio_plan_create(MPI_COMM_WORLD, l, "subgroup", p, h)
    call check_all(rc, COLLIO_OK, "subgroup plan, inner multiphase")
    call collio_hints_free(h)
    call check(rank, .not. c_associated(h%ptr), "freed hints nulled")
    call check(rank, collio_plan_strategy(p) == "subgroup", "plan strategy")
    rc = collio_plan_hints(p, ph)
    call check_all(rc, COLLIO_OK, "plan_hints")
    ! every option but the path one without a value (auto.dir)
    call check(rank, collio_hints_count(ph) == collio_option_count() - 1, &
               "plan_hints: every option with a value")
    call check(rank, hint(ph, "subgroup.group") == "2" .and. &
               hint(ph, "subgroup.inner") == "multiphase" .and. &
               hint(ph, "plan.keep_buffers") == "1" .and. &
               hint(ph, "multiphase.exchange") == "auto", "plan_hints: values")
    call collio_hints_free(ph)

    ! write with a header offset through MPI-IO, read back
    path = tmpfile(nranks, "bc")
    call collio_file_options_init(fo)
    call check(rank, fo%backend == COLLIO_BACKEND_POSIX .and. fo%base_offset == 0 .and. &
               fo%sync == 0 .and. fo%info == MPI_INFO_NULL, "file option defaults")
    fo%backend = COLLIO_BACKEND_MPIIO
    fo%base_offset = 16
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, f, fo)
    call check_all(rc, COLLIO_OK, "open CREATE")
    call check(rank, collio_file_path(f) == path, "file path")
    rc = collio_write(p, f, buf(1:max(n - 1, 0_c_int64_t)))
    call check_all(rc, COLLIO_ERR_BUFSIZE, "write, buffer too short")
    ! a failed write leaves the file failed: its close commits nothing
    rc = collio_file_close(f)
    call check_all(rc, COLLIO_ERR_IO, "close after a failed write")
    call check(rank, index(collio_last_error(), "is not committed") > 0, &
               "close says why it did not commit")
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, f, fo)
    call check_all(rc, COLLIO_OK, "open CREATE again")
    rc = collio_write(p, f, buf)
    call check_all(rc, COLLIO_OK, "write")
    rc = collio_file_close(f)
    call check_all(rc, COLLIO_OK, "close")
    call check(rank, .not. c_associated(f%ptr), "closed file nulled")
    rc = collio_plan_stats(p, st)
    call check_all(rc, COLLIO_OK, "stats")
    call check(rank, st%nnodes == 1 .and. st%total_s > 0 .and. st%inspect_s > 0, &
               "stats fields")
    call stats_by_key(p, st)
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, f, fo)
    call check_all(rc, COLLIO_OK, "open READ")
    back = -1
    rc = collio_read(p, f, back)
    call check_all(rc, COLLIO_OK, "read")
    call check(rank, all(back == buf), "read back what was written")
    ! the file described for HDF5 tools: int64 from byte 16 on
    rc = collio_describe_h5(MPI_COMM_WORLD, path//".h5", path, COLLIO_H5_INT64, &
                            [nx], .false., 16_c_int64_t)
    if (collio_have_h5()) then
      call check_all(rc, COLLIO_OK, "describe_h5")
    else
      call check_all(rc, COLLIO_ERR_UNSUPPORTED, "describe_h5 without HDF5")
    end if
    rc = collio_describe_h5(MPI_COMM_WORLD, path//".h5", path, COLLIO_H5_INT64, &
                            [nx + 1], .false., 16_c_int64_t, "more")
    if (collio_have_h5()) call check_all(rc, COLLIO_ERR_EOF, "describe_h5 beyond the file")
    rc = collio_describe_h5(MPI_COMM_WORLD, path//".h5", path, 99, [nx], .false.)
    call check_all(rc, COLLIO_ERR_ARG, "describe_h5 type out of range")
    if (rank == 0) call remove_file(path//".h5")
    rc = collio_write(p, f, buf)
    call check_all(rc, COLLIO_ERR_STATE, "write to a READ file")
    rc = collio_file_close(f)
    call collio_plan_free(p)
    call check(rank, .not. c_associated(p%ptr), "freed plan nulled")

    ! the same file through a full-size global buffer (set_memory_global),
    ! and through an MPI datatype (MPI_INTEGER8 x n) with the pointer calls
    rc = collio_layout_block_cyclic(MPI_COMM_WORLD, nx, 7_c_int64_t, 8, lg)
    call check_all(rc, COLLIO_OK, "block_cyclic (global memory)")
    rc = collio_layout_set_memory_global(lg)
    call check_all(rc, COLLIO_OK, "set_memory_global")
    call check(rank, collio_layout_buffer_bytes(lg) == 8 * nx, "global buffer bytes")
    rc = collio_plan_create(MPI_COMM_WORLD, lg, plan=p) ! the default: auto
    call check_all(rc, COLLIO_OK, "plan (global memory)")
    call check(rank, collio_plan_strategy(p) == "auto", "no strategy: auto")
    allocate (gbuf(0:nx - 1))
    gbuf = -1
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, f, fo)
    rc = collio_read(p, f, gbuf)
    call check_all(rc, COLLIO_OK, "read (global memory)")
    call check(rank, all(gbuf(buf) == buf), "global buffer filled at its indices")
    rc = collio_file_close(f)
    call collio_plan_free(p)
    call collio_layout_free(lg)

    rc = collio_layout_block_cyclic(MPI_COMM_WORLD, nx, 7_c_int64_t, 8, ld)
    dtype = MPI_INTEGER8
    rc = collio_layout_set_memory_datatype(ld, dtype, int(n))
    call check_all(rc, COLLIO_OK, "set_memory_datatype (INTEGER handle)")
    rc = collio_plan_create(MPI_COMM_WORLD, ld, "two_phase", p)
    back = -1
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, f, fo)
    rc = collio_read_ptr(p, f, c_loc(back), 8 * n)
    call check_all(rc, COLLIO_OK, "read_ptr (datatype memory)")
    call check(rank, all(back == buf), "read_ptr back")
    rc = collio_file_close(f)
    call collio_plan_free(p)
    call collio_layout_free(ld)

    ! missing file
    rc = collio_file_open(MPI_COMM_WORLD, path//".missing", COLLIO_FILE_READ, f)
    call check_all(rc, COLLIO_ERR_OPEN, "open a missing file")

    ! abort keeps the previous file; index lists: reversed contiguous pieces
    nper = (nx + nranks - 1) / nranks
    lo = min(rank * nper, nx)
    hi = min(lo + nper, nx)
    allocate (idx(hi - lo))
    idx = [(k, k = hi - 1, lo, -1)]
    call collio_layout_free(l)
    rc = collio_layout_index_list(MPI_COMM_WORLD, nx, idx, 8, l)
    call check_all(rc, COLLIO_OK, "index_list")
    rc = collio_plan_create(MPI_COMM_WORLD, l, "multiphase", p)
    call check_all(rc, COLLIO_OK, "plan (index list)")
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, f)
    rc = collio_write(p, f, -idx)
    rc = collio_file_abort(f)
    call check_all(rc, COLLIO_OK, "abort")
    path = tmpfile(nranks, "il")
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, f)
    rc = collio_write(p, f, idx)
    call check_all(rc, COLLIO_OK, "write (index list)")
    rc = collio_file_close(f)
    deallocate (back)
    allocate (back(size(idx)))
    back = -1
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, f)
    rc = collio_read(p, f, back)
    call check_all(rc, COLLIO_OK, "read (index list)")
    call check(rank, all(back == idx), "index list round trip")
    rc = collio_file_close(f)
    call collio_plan_free(p)
    call collio_layout_free(l)
    if (rank == 0) then
      rc = collio_layout_index_list(MPI_COMM_WORLD, nx, [idx, nx], 8, l)
    else
      rc = collio_layout_index_list(MPI_COMM_WORLD, nx, idx, 8, l)
    end if
    call check_all(rc, COLLIO_ERR_RANGE, "index list: index nx on rank 0")
    call collio_layout_free(l)

    ! replicated: own [lo, hi) and hold the next piece's first element too
    deallocate (idx)
    if (hi < nx .and. hi > lo) then
      allocate (idx(hi - lo + 1), owned(hi - lo + 1))
      idx = [(k, k = lo, hi)]
    else
      allocate (idx(hi - lo), owned(hi - lo))
      idx = [(k, k = lo, hi - 1)]
    end if
    owned = idx < hi
    rc = collio_layout_index_list_replicated(MPI_COMM_WORLD, nx, idx, owned(1:0), 8, l)
    call check_all(rc, COLLIO_ERR_ARG, "replicated: owned shorter than idx")
    rc = collio_hints_create(h)
    rc = collio_hints_set_int(h, "replicas.policy", RP_IDG)
    call check_all(rc, COLLIO_OK, "hints_set_int replicas.policy")
    rc = collio_layout_index_list_replicated(MPI_COMM_WORLD, nx, idx, owned, 8, l)
    call check_all(rc, COLLIO_OK, "index_list_replicated")
    rc = collio_plan_create(MPI_COMM_WORLD, l, "independent", p, h)
    call check_all(rc, COLLIO_OK, "plan (replicated)")
    call collio_hints_free(h)
    path = tmpfile(nranks, "rep")
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, f)
    rc = collio_write(p, f, idx)
    call check_all(rc, COLLIO_OK, "write (replicated)")
    rc = collio_file_close(f)
    rc = collio_plan_stat(p, "replicas.policy", v)
    call check(rank, rc == COLLIO_OK .and. nint(v) == RP_IDG, &
               "stat replicas.policy")
    rc = collio_plan_stat(p, "replicas.held", v)
    call check(rank, rc == COLLIO_OK .and. nint(v, c_int64_t) == size(idx), &
               "stat replicas.held")
    ! every element written exactly once: the ranks' counts add up to nx
    rc = collio_plan_stat(p, "replicas.written", v)
    call MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, &
                       ierr)
    call check(rank, rc == COLLIO_OK .and. nint(v, c_int64_t) == nx, &
               "stat replicas.written: every element once")
    deallocate (back)
    allocate (back(size(idx)))
    back = -1
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, f)
    rc = collio_read(p, f, back)
    call check_all(rc, COLLIO_OK, "read (replicated)")
    call check(rank, all(back == idx), "replicated round trip, every copy filled")
    rc = collio_file_close(f)
    call collio_plan_free(p)
    call collio_layout_free(l)
    call bindings_parity()
  end subroutine run_int

  ! Rank 0 reads the int64 file at path whole (stream access): raw(g + 1)
  ! is element g.
  subroutine read_raw(path, raw)
    character(len=*), intent(in) :: path
    integer(c_int64_t), intent(out) :: raw(:)
    integer :: u
    raw = -7
    open (newunit=u, file=path, access="stream", form="unformatted", status="old", &
          action="read")
    read (u) raw
    close (u)
  end subroutine read_raw

  ! collio_write_at / collio_read_at (three variables of one plan at byte
  ! offsets), collio_layout_extents (runs of 3 with holes between, kept
  ! as the file had them), collio_plan_predict and collio_plan_prepare;
  ! the expected bytes computed here from the layouts' definitions.
  subroutine bindings_parity()
    type(collio_layout) :: l
    type(collio_plan) :: p
    type(collio_file) :: f
    integer(c_int64_t), parameter :: nx = 101, runs = 3
    integer(c_int64_t), allocatable :: idx(:), back(:), offs(:), lens(:), raw(:)
    integer(c_int64_t) :: k, v, nt, g
    integer :: rc, cand, u
    logical :: ok
    real(c_double) :: secs
    character(len=:), allocatable :: path

    ! three variables: element i of variable v is i + v * nx, at v * nx * 8
    ! bytes, so the file holds element g = g over 3 * nx elements
    rc = collio_layout_block_cyclic(MPI_COMM_WORLD, nx, 3_c_int64_t, 8, l)
    rc = collio_plan_create(MPI_COMM_WORLD, l, "multiphase", p)
    call check_all(rc, COLLIO_OK, "plan (write_at)")
    n_local: block
      integer(c_int64_t) :: n
      n = collio_layout_local_count(l)
      allocate (idx(n), back(n))
      do k = 1, n
        idx(k) = collio_layout_global_index(l, k - 1)
      end do
    end block n_local
    path = tmpfile(nranks, "at")
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, f)
    do v = 2, 0, -1
      rc = collio_write_at(p, f, v * nx * 8, idx + v * nx)
      call check_all(rc, COLLIO_OK, "collio_write_at")
    end do
    rc = collio_file_close(f)
    call check_all(rc, COLLIO_OK, "close (write_at)")
    if (rank == 0) then
      allocate (raw(3 * nx))
      call read_raw(path, raw)
      call check(rank, all(raw == [(g, g = 0, 3 * nx - 1)]), "write_at: the file")
      deallocate (raw)
    end if
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, f)
    do v = 0, 2
      back = -1
      rc = collio_read_at(p, f, v * nx * 8, back)
      call check_all(rc, COLLIO_OK, "collio_read_at")
      call check(rank, all(back == idx + v * nx), "read_at: a variable read back")
    end do
    rc = collio_read_at(p, f, -8_c_int64_t, back)
    call check_all(rc, COLLIO_ERR_ARG, "read_at: a negative offset")
    rc = collio_file_close(f)
    call requests(p, idx, path)
    call collio_plan_free(p)
    call collio_layout_free(l)

    ! extents: rank r holds [10 (r + P j), + 3) for j = 0 .. runs - 1; the
    ! file is -1 everywhere before, and stays so in the holes
    allocate (offs(runs), lens(runs))
    offs = [(10 * (rank + nranks * k), k = 0, runs - 1)]
    lens = 3
    nt = 10 * nranks * runs - 7
    rc = collio_layout_extents(MPI_COMM_WORLD, offs, lens, 8, l)
    call check_all(rc, COLLIO_OK, "collio_layout_extents")
    call check(rank, collio_layout_local_count(l) == 3 * runs, "extents: local count")
    deallocate (idx, back)
    allocate (idx(3 * runs), back(3 * runs))
    idx = [((offs(k) + v, v = 0, 2), k = 1, runs)]
    path = tmpfile(nranks, "ext")
    if (rank == 0) then
      allocate (raw(nt))
      raw = -1
      open (newunit=u, file=path, access="stream", form="unformatted", status="replace", &
            action="write")
      write (u) raw
      close (u)
      deallocate (raw)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, rc)
    rc = collio_plan_create(MPI_COMM_WORLD, l, "independent", p)
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_INPLACE, f)
    rc = collio_write(p, f, idx)
    call check_all(rc, COLLIO_OK, "write (extents)")
    rc = collio_file_close(f)
    if (rank == 0) then
      allocate (raw(nt))
      call read_raw(path, raw)
      ok = .true.
      do g = 0, nt - 1
        if (mod(g, 10) < 3) then
          ok = ok .and. raw(g + 1) == g
        else
          ok = ok .and. raw(g + 1) == -1
        end if
      end do
      call check(rank, ok, "extents: runs written, holes kept")
    end if
    back = -1
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, f)
    rc = collio_read(p, f, back)
    call check_all(rc, COLLIO_OK, "read (extents)")
    call check(rank, all(back == idx), "extents: read back")
    rc = collio_file_close(f)
    call collio_plan_free(p)
    call collio_layout_free(l)
    rc = collio_layout_extents(MPI_COMM_WORLD, offs, lens(1:1), 8, l)
    call check(rank, rc == COLLIO_ERR_ARG, "extents: off and len of different sizes")

    ! predict and prepare: auto names a candidate of auto.only, the others
    ! none
    rc = collio_layout_block_cyclic(MPI_COMM_WORLD, 4096_c_int64_t, 16_c_int64_t, 4, l)
    rc = collio_plan_create(MPI_COMM_WORLD, l, "auto", p)
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, f)
    rc = collio_plan_prepare(p, f, .true.)
    call check_all(rc, COLLIO_OK, "collio_plan_prepare (auto)")
    rc = collio_plan_predict(p, f, .true., cand, secs)
    call check(rank, rc == COLLIO_OK .and. cand >= 0 .and. secs > 0 .and. &
               len(collio_option_value_name("auto.only", cand + 1)) > 0, &
               "collio_plan_predict (auto): a candidate and its seconds")
    call collio_plan_free(p)
    rc = collio_plan_create(MPI_COMM_WORLD, l, "serial", p)
    rc = collio_plan_predict(p, f, .false., cand, secs)
    call check(rank, rc == COLLIO_OK .and. cand == -1 .and. secs == -1, &
               "collio_plan_predict (serial): none")
    rc = collio_file_abort(f)
    call collio_plan_free(p)
    call collio_layout_free(l)
    if (rank == 0) call remove_file(path)
  end subroutine bindings_parity

  ! Requests: the three variables of bindings_parity again, started in
  ! reverse order and completed by collio_waitall; read back by
  ! collio_iread_at completed by collio_wait and collio_test loops.
  subroutine requests(p, idx, path)
    type(collio_plan), intent(in) :: p
    integer(c_int64_t), intent(in) :: idx(:)
    character(len=*), intent(in) :: path
    integer(c_int64_t), parameter :: nx = 101
    integer(c_int64_t), allocatable, asynchronous :: vars(:, :)
    integer(c_int64_t), allocatable :: raw(:)
    type(collio_request) :: r(0:2)
    type(collio_file) :: f
    integer(c_int) :: codes(3)
    integer(c_int64_t) :: v, g
    integer :: rc
    logical :: done

    allocate (vars(size(idx), 0:2))
    do v = 0, 2
      vars(:, v) = idx + v * nx
    end do
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, f)
    do v = 2, 0, -1
      rc = collio_iwrite_at(p, f, v * nx * 8, vars(:, v), r(v))
      call check_all(rc, COLLIO_OK, "collio_iwrite_at")
    end do
    rc = collio_waitall(r, codes)
    call check_all(rc, COLLIO_OK, "collio_waitall")
    call check(rank, all(codes == COLLIO_OK), "collio_waitall: every code")
    rc = collio_file_close(f)
    call check_all(rc, COLLIO_OK, "close (requests)")
    if (rank == 0) then
      allocate (raw(3 * nx))
      call read_raw(path, raw)
      call check(rank, all(raw == [(g, g = 0, 3 * nx - 1)]), "requests: the file")
    end if
    vars = -1
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, f)
    do v = 0, 2
      rc = collio_iread_at(p, f, v * nx * 8, vars(:, v), r(v))
      call check_all(rc, COLLIO_OK, "collio_iread_at")
    end do
    rc = collio_wait(r(0))
    call check_all(rc, COLLIO_OK, "collio_wait")
    done = .false.
    do while (.not. done)
      rc = collio_test(r(1), done)
    end do
    call check_all(rc, COLLIO_OK, "collio_test")
    rc = collio_waitall(r(2:2))
    call check_all(rc, COLLIO_OK, "collio_waitall (one)")
    do v = 0, 2
      call check(rank, all(vars(:, v) == idx + v * nx), "requests: read back")
    end do
    rc = collio_file_close(f)
  end subroutine requests

  ! The value of key in h ("" if not set, or on error).
  function hint(h, key) result(s)
    type(collio_hints), intent(in) :: h
    character(len=*), intent(in) :: key
    character(len=:), allocatable :: s
    character(len=256) :: val
    logical :: flag
    integer :: rc
    val = ""
    rc = collio_hints_get(h, key, val, flag)
    s = ""
    if (rc == COLLIO_OK .and. flag) s = trim(val)
  end function hint

  ! The option and statistics catalogue, against include/collio.h and the
  ! library's name functions.
  subroutine catalogue()
    type(collio_option_info) :: oi
    type(collio_stat_info) :: si
    character(len=:), allocatable :: names, keys
    character(len=16) :: txt
    integer :: i, k, rc, found, nopt, nst, narrays
    narrays = 0
    nopt = collio_option_count()
    call check(rank, nopt >= 12, "option count")
    found = 0
    keys = ","
    do i = 0, nopt - 1
      rc = collio_option_describe(i, oi)
      call check(rank, rc == COLLIO_OK, "option_describe")
      if (rc /= COLLIO_OK) cycle
      ! (a path option, auto.dir, has no default: empty)
      call check(rank, index(oi%key, ".") > 1 .and. len(oi%doc) > 0 .and. &
                 (len(oi%deflt) > 0 .or. oi%type == "path") .and. len(oi%range) > 0, &
                 "option "//oi%key//" described")
      call check(rank, index(keys, ","//oi%key//",") == 0, "option "//oi%key//" once")
      keys = keys//oi%key//","
      select case (oi%key)
      case ("multiphase.phases")
        found = found + 1
        ! (docs/options.md: 0..32, a phase per bit of the rank)
        call check(rank, oi%type == "int" .and. oi%deflt == "0" .and. oi%range == "0..32", &
                   "multiphase.phases: int, 0, 0..32")
      case ("multiphase.exchange")
        found = found + 1
        names = collio_option_value_name("multiphase.exchange", 0)
        do k = 1, EX_COUNT - 1
          names = names//"|"//collio_option_value_name("multiphase.exchange", k)
        end do
        call check(rank, oi%type == "name" .and. oi%range == names .and. &
                   oi%deflt == collio_option_value_name("multiphase.exchange", EX_AUTO), &
                   "multiphase.exchange: the exchange names")
      case ("replicas.policy")
        found = found + 1
        names = collio_option_value_name("replicas.policy", 0)
        do k = 1, RP_COUNT - 1
          names = names//"|"//collio_option_value_name("replicas.policy", k)
        end do
        call check(rank, oi%type == "name" .and. oi%range == names, &
                   "replicas.policy: the policy names")
      case ("plan.keep_buffers", "plan.destroy_input")
        found = found + 1
        call check(rank, oi%type == "bool" .and. i < 2, oi%key//": bool, section plan first")
      case ("subgroup.inner")
        found = found + 1
        call check(rank, oi%type == "strategy" .and. &
                   collio_strategy_is_canonical(oi%deflt) == 1, "subgroup.inner: a strategy")
      end select
    end do
    call check(rank, found == 6, "the documented options are in the catalogue")
    call check(rank, index(keys, ",multiphase.keep_buffers,") == 0, &
               "keep_buffers is a plan option only")
    rc = collio_option_describe(nopt, oi)
    call check(rank, rc == COLLIO_ERR_ARG, "option_describe past the end")
    rc = collio_option_describe(-1, oi)
    call check(rank, rc == COLLIO_ERR_ARG .and. .not. allocated(oi%key), &
               "option_describe(-1)")

    nst = collio_stat_count()
    found = 0
    do i = 0, nst - 1
      rc = collio_stat_describe(i, si)
      call check(rank, rc == COLLIO_OK .and. len(si%key) > 0 .and. len(si%doc) > 0, &
                 "stat_describe")
      if (si%key == "total_s") then
        found = found + 1
        call check(rank, si%per_call .and. index(si%key, ".") == 0, "total_s: per call")
      else if (si%key == "inspect_s" .or. si%key == "multiphase.exchange") then
        found = found + 1
        call check(rank, .not. si%per_call, si%key//": the plan's")
      else if (si%key == "multiphase.phase_bytes") then
        found = found + 1
        call check(rank, si%per_call .and. si%count == 32 .and. &
                   si%length == "multiphase.nphases", "phase_bytes: 32 values, nphases used")
      end if
      ! many values: multiphase's four per-phase figures (docs/options.md)
      if (si%count /= 1) then
        narrays = narrays + 1
        call check(rank, index(si%key, "multiphase.phase_") == 1 .and. &
                   si%length == "multiphase.nphases", si%key//": per phase")
      else
        call check(rank, si%length == "", si%key//": one value, no length")
      end if
    end do
    call check(rank, found == 4 .and. narrays == 4, &
               "the documented statistics are in the catalogue")
    rc = collio_stat_describe(nst, si)
    call check(rank, rc == COLLIO_ERR_ARG, "stat_describe past the end")
  end subroutine catalogue

  ! A set of hints: every setter, read back; the library's refusals.
  subroutine hints_api()
    type(collio_hints) :: h
    character(len=64) :: val
    character(len=2) :: short
    logical :: flag
    integer :: rc, info, ierr

    rc = collio_hints_create(h)
    call check_all(rc, COLLIO_OK, "hints_create")
    call check(rank, collio_hints_count(h) == 0, "a new set is empty")
    rc = collio_hints_set(h, "multiphase.phases", "2")
    call check_all(rc, COLLIO_OK, "hints_set text")
    rc = collio_hints_set(h, "plan.keep_buffers", .false.)
    call check_all(rc, COLLIO_OK, "hints_set logical")
    rc = collio_hints_set(h, "serial.chunk_bytes", 4096_c_int64_t)
    call check_all(rc, COLLIO_OK, "hints_set int64")
    rc = collio_hints_set_int(h, "multiphase.exchange", EX_NODE_DIRECT)
    call check_all(rc, COLLIO_OK, "hints_set_int a name's index")
    rc = collio_hints_set(h, "multiphase.phases", 3)
    call check_all(rc, COLLIO_OK, "hints_set replaces")
    rc = collio_hints_set(h, "replicas.seed", "18446744073709551615")
    call check_all(rc, COLLIO_OK, "hints_set uint64 max")
    call check(rank, collio_hints_count(h) == 5, "hints count")
    call check(rank, collio_hints_key(h, 0) == "multiphase.phases" .and. &
               collio_hints_key(h, 3) == "multiphase.exchange" .and. &
               collio_hints_key(h, 5) == "" .and. collio_hints_key(h, -1) == "", &
               "hints keys in the order first set")
    call check(rank, hint(h, "multiphase.phases") == "3" .and. &
               hint(h, "plan.keep_buffers") == "0" .and. &
               hint(h, "serial.chunk_bytes") == "4096" .and. &
               hint(h, "multiphase.exchange") == "node-direct" .and. &
               hint(h, "replicas.seed") == "18446744073709551615", "hints values")
    val = "untouched"
    rc = collio_hints_get(h, "subgroup.group", val, flag)
    call check(rank, rc == COLLIO_OK .and. .not. flag .and. val == "untouched", &
               "hints_get: a key not set")
    rc = collio_hints_get(h, "multiphase.exchange", short, flag)
    call check(rank, rc == COLLIO_ERR_ARG .and. .not. flag, "hints_get: value too long")

    ! the library's refusals (local; every rank here), the set unchanged
    rc = collio_hints_set(h, "multiphase.phase", "1")
    call check_all(rc, COLLIO_ERR_ARG, "hints_set unknown key")
    call check(rank, index(collio_last_error(), "multiphase.phase") > 0, &
               "last_error names the key")
    rc = collio_hints_set(h, "multiphase.phases", "33")
    call check_all(rc, COLLIO_ERR_ARG, "hints_set out of range")
    rc = collio_hints_set(h, "serial.chunk_bytes", 0)
    call check_all(rc, COLLIO_ERR_ARG, "hints_set chunk_bytes 0")
    rc = collio_hints_set_int(h, "multiphase.exchange", EX_COUNT)
    call check_all(rc, COLLIO_ERR_ARG, "hints_set_int not a name's index")
    rc = collio_hints_set(h, "multiphase.exchange", "sideways")
    call check_all(rc, COLLIO_ERR_ARG, "hints_set unknown name")
    rc = collio_hints_set(h, "plan.destroy_input", "maybe")
    call check_all(rc, COLLIO_ERR_ARG, "hints_set not a boolean")
    rc = collio_hints_set(h, "subgroup.inner", "nope")
    call check_all(rc, COLLIO_ERR_STRATEGY, "hints_set unknown strategy")
    call check(rank, collio_hints_count(h) == 5 .and. hint(h, "multiphase.phases") == "3", &
               "refused values leave the set as it was")

    ! lists
    rc = collio_hints_parse(h, " subgroup.group = 4 , plan.destroy_input=yes,,")
    call check_all(rc, COLLIO_OK, "hints_parse")
    call check(rank, hint(h, "subgroup.group") == "4" .and. &
               hint(h, "plan.destroy_input") == "1", "hints_parse values")
    rc = collio_hints_parse(h, "multiphase.write_rounds=2,multiphase.phases=x,subgroup.group=5")
    call check_all(rc, COLLIO_ERR_ARG, "hints_parse a bad value")
    call check(rank, hint(h, "multiphase.write_rounds") == "2" .and. &
               hint(h, "subgroup.group") == "4", "hints_parse: pairs before the bad one set")
    rc = collio_hints_parse(h, "multiphase.phases")
    call check_all(rc, COLLIO_ERR_ARG, "hints_parse not KEY=VALUE")

    ! MPI_Info (INTEGER handle): collio's keys set, MPI-IO's left alone
    call MPI_Info_create(info, ierr)
    call MPI_Info_set(info, "multiphase.exchange", "hypercube", ierr)
    call MPI_Info_set(info, "cb_nodes", "1", ierr)
    rc = collio_hints_set_info(h, info)
    call check_all(rc, COLLIO_OK, "hints_set_info (INTEGER)")
    call check(rank, hint(h, "multiphase.exchange") == "hypercube" .and. &
               hint(h, "cb_nodes") == "", "hints_set_info: collio's keys only")
    call MPI_Info_set(info, "replicas.policy", "nobody", ierr)
    rc = collio_hints_set_info(h, info)
    call check_all(rc, COLLIO_ERR_ARG, "hints_set_info a bad value")
    call MPI_Info_free(info, ierr)
    rc = collio_hints_set_info(h, MPI_INFO_NULL)
    call check_all(rc, COLLIO_OK, "hints_set_info MPI_INFO_NULL")
    call collio_hints_free(h)
    call collio_hints_free(h) ! null-safe
    call check(rank, collio_hints_count(h) == 0, "a null set counts 0")
  end subroutine hints_api

  ! Plans made with hints: the values they run with, precedence of
  ! COLLIO_HINTS, errors on every rank.
  subroutine hints_plans(l)
    type(collio_layout), intent(in) :: l
    type(collio_hints) :: h, ph
    type(collio_plan) :: p
    integer :: rc, lrc

    ! options that differ across ranks: ERR_MISMATCH on every rank
    rc = collio_hints_create(h)
    rc = collio_hints_set(h, "serial.chunk_bytes", int(100 + rank, c_int64_t))
    rc = collio_plan_create(MPI_COMM_WORLD, l, "serial", p, h)
    if (nranks > 1) call check_all(rc, COLLIO_ERR_MISMATCH, "hints differ across ranks")
    call collio_plan_free(p)
    call collio_hints_free(h)

    ! one rank's bad hint: refused there (its set stays without it), then
    ! the plan mismatches on every rank -- no rank is left waiting
    rc = collio_hints_create(h)
    if (rank == nranks - 1) then
      lrc = collio_hints_set(h, "multiphase.phases", "99")
    else
      lrc = collio_hints_set(h, "multiphase.phases", "1")
    end if
    call check(rank, lrc == merge(COLLIO_ERR_ARG, COLLIO_OK, rank == nranks - 1), &
               "a bad hint on the last rank: refused there")
    rc = collio_plan_create(MPI_COMM_WORLD, l, "independent", p, h)
    if (nranks > 1) call check_all(rc, COLLIO_ERR_MISMATCH, "then the plan mismatches")
    call collio_plan_free(p)
    call collio_hints_free(h)

    ! options that do not go together: direct with 1 <= phases < all
    if (nranks >= 3) then
      rc = collio_hints_create(h)
      rc = collio_hints_parse(h, "multiphase.exchange=direct,multiphase.phases=1")
      rc = collio_plan_create(MPI_COMM_WORLD, l, "multiphase", p, h)
      call check_all(rc, COLLIO_ERR_ARG, "direct with phases = 1")
      call collio_hints_free(h)
    end if
    rc = collio_plan_create(MPI_COMM_WORLD, l, "nope", p, h)
    call check_all(rc, COLLIO_ERR_STRATEGY, "unknown strategy (null hints)")

    ! defaults < hints < COLLIO_HINTS
    rc = collio_hints_create(h)
    rc = collio_hints_parse(h, "multiphase.write_rounds=2,subgroup.group=3")
    call set_env("COLLIO_HINTS", "subgroup.group=2,plan.keep_buffers=0")
    rc = collio_plan_create(MPI_COMM_WORLD, l, "multiphase", p, h)
    call check_all(rc, COLLIO_OK, "plan with hints and COLLIO_HINTS")
    rc = collio_plan_hints(p, ph)
    call check(rank, hint(ph, "multiphase.write_rounds") == "2" .and. &
               hint(ph, "subgroup.group") == "2" .and. hint(ph, "plan.keep_buffers") == "0" &
               .and. hint(ph, "plan.destroy_input") == "0", &
               "defaults < hints < COLLIO_HINTS")
    call collio_hints_free(ph)
    call collio_plan_free(p)
    ! a bad COLLIO_HINTS on one rank: ERR_ARG on every rank, naming it
    if (rank == nranks - 1) call set_env("COLLIO_HINTS", "multiphase.bogus=1")
    if (rank /= nranks - 1) call unset_env("COLLIO_HINTS")
    rc = collio_plan_create(MPI_COMM_WORLD, l, "multiphase", p, h)
    call check_all(rc, COLLIO_ERR_ARG, "a bad COLLIO_HINTS on the last rank")
    call check(rank, index(collio_last_error(), "multiphase.bogus") > 0, &
               "its error names the key: "//collio_last_error())
    call unset_env("COLLIO_HINTS")
    call collio_hints_free(h)
  end subroutine hints_plans

  ! The statistics by key: every key of the catalogue, the generic ones
  ! equal to collio_stats' fields, subgroup's groups of 2 against counts
  ! computed here.
  subroutine stats_by_key(p, st)
    type(collio_plan), intent(in) :: p
    type(collio_stats), intent(in) :: st
    type(collio_stat_info) :: si
    real(c_double) :: v, vals(64)
    integer :: i, rc, bad, n
    bad = 0
    do i = 0, collio_stat_count() - 1
      rc = collio_stat_describe(i, si)
      if (si%count > 1) then ! many values: read with collio_plan_stat_values
        rc = collio_plan_stat_values(p, si%key, vals, n)
        if (n < 0 .or. n > si%count) bad = bad + 1
      else
        rc = collio_plan_stat(p, si%key, v)
      end if
      if (rc /= COLLIO_OK) bad = bad + 1
    end do
    call check(rank, bad == 0, "every statistic of the catalogue readable")
    rc = collio_plan_stat(p, "total_s", v)
    call check(rank, rc == COLLIO_OK .and. v == st%total_s, "stat total_s")
    rc = collio_plan_stat(p, "file_bytes", v)
    call check(rank, rc == COLLIO_OK .and. nint(v, c_int64_t) == st%file_bytes, &
               "stat file_bytes")
    rc = collio_plan_stat(p, "subgroup.ngroups", v)
    call check(rank, rc == COLLIO_OK .and. nint(v) == (nranks + 1) / 2, &
               "stat subgroup.ngroups: ceil(P / 2)")
    rc = collio_plan_stat(p, "subgroup.group", v)
    call check(rank, rc == COLLIO_OK .and. nint(v) == min(2, nranks - 2 * (rank / 2)), &
               "stat subgroup.group: this rank's group size")
    rc = collio_plan_stat(p, "subgroup.master", v)
    call check(rank, rc == COLLIO_OK .and. nint(v) == merge(1, 0, mod(rank, 2) == 0), &
               "stat subgroup.master")
    rc = collio_plan_stat(p, "multiphase.no_such_stat", v)
    call check(rank, rc == COLLIO_ERR_ARG .and. &
               index(collio_last_error(), "no_such_stat") > 0, "stat: an unknown key")
  end subroutine stats_by_key
end module api_int

! ------------------------------------------- use mpi_f08: type(MPI_Comm)
module api_f08
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use collio
  use api_checks
  implicit none
  private
  public :: run_f08, init_f08, finish_f08
  integer :: rank, nranks
contains
  subroutine init_f08()
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  end subroutine init_f08

  subroutine check_all(comm, rc, want, what)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: rc, want
    character(len=*), intent(in) :: what
    integer :: lo, hi
    call MPI_Allreduce(rc, lo, 1, MPI_INTEGER, MPI_MIN, comm)
    call MPI_Allreduce(rc, hi, 1, MPI_INTEGER, MPI_MAX, comm)
    call check(rank, lo == want .and. hi == want, what//": "//collio_strerror(rc)// &
               " -- "//collio_last_error())
  end subroutine check_all

  subroutine run_f08()
    type(MPI_Comm) :: comm
    type(MPI_Datatype) :: dtype
    type(collio_layout) :: l
    type(collio_plan) :: p
    type(collio_file) :: f
    type(collio_hints) :: h, ph
    type(MPI_Info) :: info
    real(c_double) :: v, phase_bytes(40)
    type(collio_stats) :: st
    character(len=32) :: val
    logical :: flag
    integer :: nvals, rc2
    integer, parameter :: G1 = 7, G2 = 10
    real(c_double), allocatable, target :: a(:, :), b(:, :)
    integer :: rc, i, j, r0, r1, nb
    character(len=:), allocatable :: path

    call MPI_Comm_dup(MPI_COMM_WORLD, comm)
    ! bad arguments: arrays of different lengths, a grid that is not P
    rc = collio_layout_darray(comm, [integer(c_int64_t) :: G1, G2], &
                              [COLLIO_DIST_BLOCK], [nranks, 1], COLLIO_ORDER_C, 8, l)
    call check_all(comm, rc, COLLIO_ERR_ARG, "darray: distribs shorter than gsizes")
    rc = collio_layout_darray(comm, [integer(c_int64_t) :: G1, G2], &
                              [COLLIO_DIST_BLOCK, COLLIO_DIST_NONE], [nranks + 1, 1], &
                              COLLIO_ORDER_C, 8, l)
    call check_all(comm, rc, COLLIO_ERR_ARG, "darray: grid of P + 1")
    rc = collio_layout_darray(comm, [integer(c_int64_t) :: G1, G2], &
                              [COLLIO_DIST_BLOCK, COLLIO_DIST_NONE], [nranks, 1], &
                              COLLIO_ORDER_C, 8, l, dargs=[1_c_int64_t, 0_c_int64_t])
    if (nranks * 1 < G1) call check_all(comm, rc, COLLIO_ERR_ARG, "darray: darg too small")
    call collio_layout_free(l)

    ! a(i, j) of a G1 x G2 array in Fortran order, BLOCK over dimension 1;
    ! value: its 0-based file index (i-1) + G1*(j-1)
    nb = (G1 + nranks - 1) / nranks
    r0 = min(rank * nb, G1)
    r1 = min(r0 + nb, G1)
    allocate (a(r0 + 1:r1, G2), b(r0 + 1:r1, G2))
    do j = 1, G2
      do i = r0 + 1, r1
        a(i, j) = real((i - 1) + G1 * (j - 1), c_double)
      end do
    end do
    rc = collio_layout_darray(comm, [integer(c_int64_t) :: G1, G2], &
                              [COLLIO_DIST_BLOCK, COLLIO_DIST_NONE], [nranks, 1], &
                              COLLIO_ORDER_FORTRAN, 8, l)
    call check_all(comm, rc, COLLIO_OK, "darray (f08 communicator)")
    call check(rank, collio_layout_local_count(l) == size(a), "darray local count")
    ! hints from a type(MPI_Info): collio's keys; MPI-IO's left alone
    rc = collio_hints_create(h)
    call MPI_Info_create(info)
    call MPI_Info_set(info, "multiphase.exchange", "hypercube")
    call MPI_Info_set(info, "romio_cb_write", "enable")
    rc = collio_hints_set_info(h, info)
    call check_all(comm, rc, COLLIO_OK, "hints_set_info (type(MPI_Info))")
    call MPI_Info_set(info, "plan.keep_buffers", "perhaps")
    rc = collio_hints_set_info(h, info)
    call check_all(comm, rc, COLLIO_ERR_ARG, "hints_set_info a bad value (f08)")
    call MPI_Info_free(info)
    rc = collio_hints_set(h, "plan.destroy_input", .false.)
    rc = collio_plan_create(comm, l, "multiphase", p, h)
    call check_all(comm, rc, COLLIO_OK, "plan (f08)")
    call collio_hints_free(h)
    rc = collio_plan_hints(p, ph)
    rc = collio_hints_get(ph, "multiphase.exchange", val, flag)
    call check(rank, rc == COLLIO_OK .and. flag .and. val == "hypercube", &
               "plan_hints: the exchange from the MPI_Info")
    rc = collio_hints_get(ph, "romio_cb_write", val, flag)
    call check(rank, rc == COLLIO_OK .and. .not. flag, "plan_hints: no MPI-IO key")
    call collio_hints_free(ph)
    path = tmpfile(nranks, "f08")
    rc = collio_file_open(comm, path, COLLIO_FILE_CREATE, f)
    call check_all(comm, rc, COLLIO_OK, "open (f08)")
    rc = collio_write(p, f, a)
    call check_all(comm, rc, COLLIO_OK, "write (f08)")
    rc = collio_file_close(f)
    call check_all(comm, rc, COLLIO_OK, "close (f08)")
    rc = collio_plan_stat(p, "multiphase.exchange", v)
    call check(rank, rc == COLLIO_OK, "stat multiphase.exchange")
    if (nranks > 1) call check(rank, nint(v) == EX_HYPERCUBE, &
                               "stats: the exchange asked for")
    ! per-phase figures: one value per phase, adding up to the bytes sent
    rc = collio_plan_stat(p, "multiphase.nphases", v)
    call check(rank, rc == COLLIO_OK, "stat multiphase.nphases")
    phase_bytes = -1
    rc = collio_plan_stat_values(p, "multiphase.phase_bytes", phase_bytes, nvals)
    rc2 = collio_plan_stats(p, st)
    call check(rank, rc == COLLIO_OK .and. rc2 == COLLIO_OK .and. nvals == nint(v) .and. &
               nvals <= size(phase_bytes), "stat_values multiphase.phase_bytes: nphases")
    if (nvals <= size(phase_bytes)) &
      call check(rank, nint(sum(phase_bytes(1:nvals)), c_int64_t) == st%bytes_sent .and. &
                 all(phase_bytes(nvals + 1:) == -1), "phase bytes add up, nothing past")
    rc = collio_plan_stat(p, "multiphase.phase_bytes", v)
    call check(rank, rc == COLLIO_ERR_ARG, "stat of many values: collio_plan_stat_values")
    b = -1
    rc = collio_file_open(comm, path, COLLIO_FILE_READ, f)
    rc = collio_read(p, f, b)
    call check_all(comm, rc, COLLIO_OK, "read (f08)")
    call check(rank, all(a == b), "darray round trip (f08)")
    rc = collio_file_close(f)
    call collio_plan_free(p)

    ! the same through a type(MPI_Datatype): a column-major block, read
    ! into a buffer of one extra row (every element at its place)
    deallocate (b)
    allocate (b(r0 + 1:r1 + 1, G2))
    b = -1
    call collio_layout_free(l)
    rc = collio_layout_darray(comm, [integer(c_int64_t) :: G1, G2], &
                              [COLLIO_DIST_BLOCK, COLLIO_DIST_NONE], [nranks, 1], &
                              COLLIO_ORDER_FORTRAN, 8, l)
    call MPI_Type_vector(G2, r1 - r0, r1 - r0 + 1, MPI_DOUBLE_PRECISION, dtype)
    call MPI_Type_commit(dtype)
    rc = collio_layout_set_memory_datatype(l, dtype, 1)
    call check_all(comm, rc, COLLIO_OK, "set_memory_datatype (type(MPI_Datatype))")
    call MPI_Type_free(dtype)
    rc = collio_plan_create(comm, l, "independent", p)
    rc = collio_file_open(comm, path, COLLIO_FILE_READ, f)
    rc = collio_read(p, f, b)
    call check_all(comm, rc, COLLIO_ERR_BUFSIZE, "read: the whole array is not the type's span")
    rc = collio_read_ptr(p, f, c_loc(b), collio_layout_buffer_bytes(l))
    call check_all(comm, rc, COLLIO_OK, "read_ptr (datatype, f08)")
    call check(rank, all(b(r0 + 1:r1, :) == a) .and. all(b(r1 + 1, :) == -1), &
               "datatype read fills its elements only")
    rc = collio_file_close(f)
    call collio_plan_free(p)
    call collio_layout_free(l)

    ! a bad argument on the duplicated communicator
    rc = collio_layout_block_cyclic(comm, 10_c_int64_t, -3_c_int64_t, 4, l)
    call check_all(comm, rc, COLLIO_ERR_ARG, "block_cyclic bx < 1 (f08)")
    call MPI_Comm_free(comm)
  end subroutine run_f08

  subroutine finish_f08(code)
    integer, intent(out) :: code
    integer :: counts(2), sums(2)
    counts = [passed, failed]
    call MPI_Allreduce(counts, sums, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) print '(i0, a, i0, a)', sums(1), " passed, ", sums(2), " failed"
    code = merge(1, 0, sums(2) > 0)
    call MPI_Finalize()
  end subroutine finish_f08
end module api_f08

program api
  use api_int, only: run_int
  use api_f08, only: run_f08, init_f08, finish_f08
  implicit none
  integer :: code
  call init_f08()
  call run_int()
  call run_f08()
  call finish_f08(code)
  if (code /= 0) stop 1
end program api
