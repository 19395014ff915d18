!
! api.F90 -- the Fortran bindings' API test (module collio), run at 1 and 3
! ranks through scripts/mpirun.
!
! One program, both kinds of MPI handles: module api_int calls every
! binding with `use mpi` INTEGER communicators, module api_f08 with
! `use mpi_f08` type(MPI_Comm) / type(MPI_Datatype). Each checks round
! trips (write, then read back, against the 0-based global index as the
! value), the constants, names and options against include/collio.h, and
! that bad arguments give the documented code on every rank (an
! MPI_Allreduce of min and max of the code). Prints "N passed, M failed"
! on rank 0; exit status 1 if any rank failed a check.
!
module api_checks
  implicit none
  private
  public :: check, passed, failed, tmpfile, remove_file
  integer, save :: passed = 0, failed = 0
contains
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
    type(collio_plan_options) :: po
    type(collio_file_options) :: fo
    type(collio_stats) :: st
    integer(c_int64_t), allocatable, target :: buf(:), back(:), gbuf(:), idx(:)
    logical, allocatable :: owned(:)
    integer(c_int64_t) :: k, n, nx, lo, hi, nper
    integer :: rc, ierr, i, dtype
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
    call check(rank, collio_exchange_name(COLLIO_EXCHANGE_DIRECT) == "direct", "exchange name")
    call check(rank, collio_exchange_name(COLLIO_EXCHANGE__COUNT) == "", "exchange name out")
    call check(rank, collio_exchange_from_name("node-hypercube") == &
               COLLIO_EXCHANGE_NODE_HYPERCUBE, "exchange from name")
    call check(rank, collio_exchange_from_name("nope") == -1, "exchange from bad name")
    call check(rank, collio_replicas_name(COLLIO_REPLICAS_IDG) == "idg", "replicas name")
    call check(rank, collio_replicas_from_name("domain") == COLLIO_REPLICAS_DOMAIN, &
               "replicas from name")
    call check(rank, collio_replicas_name(COLLIO_REPLICAS__COUNT) == "", "replicas name out")
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

    ! plan options: defaults, a bad multiphase value, subgroup's inner
    call collio_plan_options_init(po)
    call check(rank, po%destroy_input == 0 .and. po%multiphase%keep_buffers == 1 .and. &
               po%serial%chunk_bytes == 64 * 1024 * 1024 .and. &
               po%independent%max_iov == 1024 .and. &
               po%multiphase%exchange == COLLIO_EXCHANGE_AUTO .and. &
               po%multiphase%shared_memory == 1 .and. po%subgroup%group == 0 .and. &
               .not. c_associated(po%subgroup%inner) .and. &
               po%replicas%policy == COLLIO_REPLICAS_AUTO, "plan option defaults")
    po%multiphase%phases = COLLIO_MAX_PHASES + 1
    rc = collio_plan_create(MPI_COMM_WORLD, l, "multiphase", p, po)
    call check_all(rc, COLLIO_ERR_ARG, "multiphase.phases too large")
    call collio_plan_options_init(po)
    po%serial%chunk_bytes = 0
    rc = collio_plan_create(MPI_COMM_WORLD, l, "serial", p, po)
    call check_all(rc, COLLIO_ERR_ARG, "serial.chunk_bytes = 0")
    rc = collio_plan_create(MPI_COMM_WORLD, l, "nope", p)
    call check_all(rc, COLLIO_ERR_STRATEGY, "unknown strategy")
    call collio_plan_options_init(po)
    call collio_plan_options_set_inner(po, "no-such-inner")
    rc = collio_plan_create(MPI_COMM_WORLD, l, "subgroup", p, po)
    call check_all(rc, COLLIO_ERR_STRATEGY, "unknown subgroup inner")
    call collio_plan_options_init(po)
    po%serial%chunk_bytes = 100 + rank
    rc = collio_plan_create(MPI_COMM_WORLD, l, "serial", p, po)
    if (nranks > 1) call check_all(rc, COLLIO_ERR_MISMATCH, "options differ across ranks")
    call collio_plan_free(p)

    call collio_plan_options_init(po)
    call collio_plan_options_set_inner(po, "multiphase")
    po%subgroup%group = 2
    rc = collio_plan_create(MPI_COMM_WORLD, l, "subgroup", p, po)
    call check_all(rc, COLLIO_OK, "subgroup plan, inner multiphase")
    call check(rank, collio_plan_strategy(p) == "subgroup", "plan strategy")

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
    call check(rank, st%subgroup%group >= 1 .and. st%nnodes == 1 .and. st%total_s >= 0, &
               "stats fields")
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
    rc = collio_plan_create(MPI_COMM_WORLD, lg, "independent", p)
    call check_all(rc, COLLIO_OK, "plan (global memory)")
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
    call collio_plan_options_init(po)
    po%replicas%policy = COLLIO_REPLICAS_IDG
    rc = collio_layout_index_list_replicated(MPI_COMM_WORLD, nx, idx, owned, 8, l)
    call check_all(rc, COLLIO_OK, "index_list_replicated")
    rc = collio_plan_create(MPI_COMM_WORLD, l, "independent", p, po)
    call check_all(rc, COLLIO_OK, "plan (replicated)")
    path = tmpfile(nranks, "rep")
    rc = collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, f)
    rc = collio_write(p, f, idx)
    call check_all(rc, COLLIO_OK, "write (replicated)")
    rc = collio_file_close(f)
    rc = collio_plan_stats(p, st)
    call check(rank, st%replicas%policy == COLLIO_REPLICAS_IDG .and. &
               st%replicas%held == size(idx), "replica stats")
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
  end subroutine run_int
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
    type(collio_plan_options) :: po
    type(collio_stats) :: st
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
    call collio_plan_options_init(po)
    po%multiphase%exchange = COLLIO_EXCHANGE_HYPERCUBE
    po%destroy_input = 0
    rc = collio_plan_create(comm, l, "multiphase", p, po)
    call check_all(comm, rc, COLLIO_OK, "plan (f08)")
    path = tmpfile(nranks, "f08")
    rc = collio_file_open(comm, path, COLLIO_FILE_CREATE, f)
    call check_all(comm, rc, COLLIO_OK, "open (f08)")
    rc = collio_write(p, f, a)
    call check_all(comm, rc, COLLIO_OK, "write (f08)")
    rc = collio_file_close(f)
    call check_all(comm, rc, COLLIO_OK, "close (f08)")
    rc = collio_plan_stats(p, st)
    if (nranks > 1) call check(rank, st%multiphase%exchange == COLLIO_EXCHANGE_HYPERCUBE, &
                               "stats: the exchange asked for")
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
