! io_fortran.f90 -- plain MPI-IO from Fortran, as tests/mpiio/io_mpiio.c
! does it from C: a 1-D REAL vector of nx elements, block-cyclic with
! block bx over the ranks, described by a filetype (MPI_Type_create_darray,
! or MPI_Type_vector plus the partial last block), set as the view at
! displacement disp, written collectively -- the first half of each rank's
! elements with MPI_FILE_WRITE_ALL, the rest with MPI_FILE_WRITE_AT_ALL --
! read back with MPI_FILE_READ_ALL (and the second half again with
! MPI_FILE_READ_AT_ALL), every status's MPI_GET_COUNT and every value
! checked; rank 0 then reads the whole file with Fortran stream I/O
! (independent of MPI-IO and of any interposer) and checks every element,
! the untouched bytes before disp and the size.
!
! It tests the Fortran entry points of libcollio_mpiio (interposer/fortran.c):
! tests/mpiio/compare.sh runs it plainly and with the interposer
! LD_PRELOAD'ed and compares the files (--kind mpiio). Rank 0 first prints
! where mpi_file_open_ resolves (io_fortran_where.c), the line compare.sh
! checks.
!
! usage: io_fortran FILE [--nx N] [--bx B] [--type darray|vector]
!                        [--mode all|split|iall|f77] [--disp BYTES]
!   all    `use mpi`: WRITE_ALL, WRITE_AT_ALL, READ_ALL, READ_AT_ALL
!   split  `use mpi`: their split forms (_BEGIN / _END)
!   iall   `use mpi`: their non-blocking forms (IWRITE_ALL and
!          IWRITE_AT_ALL outstanding together, one MPI_WAITALL; each read
!          completed by MPI_WAIT)
!   f77    the same calls as all from a subroutine with include 'mpif.h'
!          (io_f77, io_fortran_f77.f90), the writes' statuses
!          MPI_STATUS_IGNORE, the second half written from MPI_BOTTOM
! Exits 1 when anything read differs from the expected values.
module io_fortran_common
  use mpi
  use io_fortran_file
  implicit none
contains
  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    integer :: rank, ierr
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    write (*, '(a,i0,a,a)') 'io_fortran: rank ', rank, ': FAIL: ', msg
    flush (6)
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    stop 1
  end subroutine fail

  subroutine check(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    character(len=MPI_MAX_ERROR_STRING) :: text
    integer :: n, e
    if (ierr == MPI_SUCCESS) return
    call MPI_ERROR_STRING(ierr, text, n, e)
    call fail(what//': '//text(1:n))
  end subroutine check

  ! The status says n REALs.
  subroutine check_count(st, n, what)
    integer, intent(in) :: st(MPI_STATUS_SIZE), n
    character(len=*), intent(in) :: what
    integer :: c, ierr
    character(len=64) :: line
    call MPI_GET_COUNT(st, MPI_REAL, c, ierr)
    call check(ierr, 'MPI_GET_COUNT')
    if (c /= n) then
      write (line, '(a,i0,a,i0)') ' count ', c, ', expected ', n
      call fail(what//trim(line))
    end if
  end subroutine check_count

  ! got(1:n) against this rank's elements from local index first (0-based).
  subroutine check_values(got, n, first, g, what)
    integer, intent(in) :: n, first
    real, intent(in) :: got(*)
    integer(i8), intent(in) :: g(*)
    character(len=*), intent(in) :: what
    character(len=128) :: msg
    call values_msg(got, n, first, g, msg)
    if (msg /= '') call fail(what//trim(msg))
  end subroutine check_values
end module io_fortran_common

program io_fortran
  use io_fortran_common
  implicit none
  character(len=4096) :: path, arg
  character(len=16) :: mode, ftype
  integer(i8) :: nx, bx, dispi, nblocks, b, k
  integer(kind=MPI_OFFSET_KIND) :: disp, off
  integer :: rank, nproc, ierr, i, n, n1, fh, ft
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2), rq(2)
  integer(i8), allocatable :: g(:)
  real, allocatable :: buf(:), rbuf(:)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
  call io_fortran_where(rank)

  call args_msg(path, nx, bx, dispi, mode, ftype, arg)
  if (arg == 'usage') call fail('usage: io_fortran FILE [--nx N] [--bx B] '// &
    '[--type darray|vector] [--mode all|split|iall|f77] [--disp BYTES]')
  if (arg /= '') call fail(trim(arg))
  disp = dispi
  nblocks = (nx + bx - 1) / bx

  call rank_elements(nx, bx, rank, nproc, g, n)
  allocate (buf(n + 1), rbuf(n + 1))
  do k = 1, n
    buf(k) = val(g(k))
  end do
  n1 = n / 2

  ft = make_filetype()

  if (trim(mode) == 'f77') then
    call io_f77(path, disp, ft, buf, rbuf, n, n1, ierr)
    call check(ierr, 'io_f77')
    call check_values(rbuf, n, 0, g, 'f77 MPI_FILE_READ_ALL')
  else if (trim(mode) == 'all' .or. trim(mode) == 'split' .or. trim(mode) == 'iall') then
    call MPI_FILE_OPEN(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, &
                       MPI_INFO_NULL, fh, ierr)
    call check(ierr, 'MPI_FILE_OPEN '//trim(path))
    ! trailing blanks in the datarep: the binding trims them
    call MPI_FILE_SET_VIEW(fh, disp, MPI_REAL, ft, 'native  ', MPI_INFO_NULL, ierr)
    call check(ierr, 'MPI_FILE_SET_VIEW')
    off = n1
    if (trim(mode) == 'all') then
      call MPI_FILE_WRITE_ALL(fh, buf, n1, MPI_REAL, st, ierr)
      call check(ierr, 'MPI_FILE_WRITE_ALL')
      call check_count(st, n1, 'MPI_FILE_WRITE_ALL')
      call MPI_FILE_WRITE_AT_ALL(fh, off, buf(n1 + 1), n - n1, MPI_REAL, st, ierr)
      call check(ierr, 'MPI_FILE_WRITE_AT_ALL')
      call check_count(st, n - n1, 'MPI_FILE_WRITE_AT_ALL')
      call MPI_FILE_SEEK(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
      call check(ierr, 'MPI_FILE_SEEK')
      rbuf = -1.0
      call MPI_FILE_READ_ALL(fh, rbuf, n, MPI_REAL, st, ierr)
      call check(ierr, 'MPI_FILE_READ_ALL')
      call check_count(st, n, 'MPI_FILE_READ_ALL')
      call check_values(rbuf, n, 0, g, 'MPI_FILE_READ_ALL')
      rbuf = -1.0
      call MPI_FILE_READ_AT_ALL(fh, off, rbuf, n - n1, MPI_REAL, st, ierr)
      call check(ierr, 'MPI_FILE_READ_AT_ALL')
      call check_count(st, n - n1, 'MPI_FILE_READ_AT_ALL')
      call check_values(rbuf, n - n1, n1, g, 'MPI_FILE_READ_AT_ALL')
    else if (trim(mode) == 'iall') then
      ! both writes outstanding at once, completed together
      call MPI_FILE_IWRITE_ALL(fh, buf, n1, MPI_REAL, rq(1), ierr)
      call check(ierr, 'MPI_FILE_IWRITE_ALL')
      call MPI_FILE_IWRITE_AT_ALL(fh, off, buf(n1 + 1), n - n1, MPI_REAL, rq(2), ierr)
      call check(ierr, 'MPI_FILE_IWRITE_AT_ALL')
      call MPI_WAITALL(2, rq, sts, ierr)
      call check(ierr, 'MPI_WAITALL')
      call check_count(sts(:, 1), n1, 'MPI_FILE_IWRITE_ALL')
      call check_count(sts(:, 2), n - n1, 'MPI_FILE_IWRITE_AT_ALL')
      call MPI_FILE_SEEK(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
      call check(ierr, 'MPI_FILE_SEEK')
      rbuf = -1.0
      call MPI_FILE_IREAD_ALL(fh, rbuf, n, MPI_REAL, rq(1), ierr)
      call check(ierr, 'MPI_FILE_IREAD_ALL')
      call MPI_WAIT(rq(1), st, ierr)
      call check(ierr, 'MPI_WAIT')
      call check_count(st, n, 'MPI_FILE_IREAD_ALL')
      call check_values(rbuf, n, 0, g, 'MPI_FILE_IREAD_ALL')
      rbuf = -1.0
      call MPI_FILE_IREAD_AT_ALL(fh, off, rbuf, n - n1, MPI_REAL, rq(2), ierr)
      call check(ierr, 'MPI_FILE_IREAD_AT_ALL')
      call MPI_WAIT(rq(2), st, ierr)
      call check(ierr, 'MPI_WAIT')
      call check_count(st, n - n1, 'MPI_FILE_IREAD_AT_ALL')
      call check_values(rbuf, n - n1, n1, g, 'MPI_FILE_IREAD_AT_ALL')
    else
      call MPI_FILE_WRITE_ALL_BEGIN(fh, buf, n1, MPI_REAL, ierr)
      call check(ierr, 'MPI_FILE_WRITE_ALL_BEGIN')
      call MPI_FILE_WRITE_ALL_END(fh, buf, st, ierr)
      call check(ierr, 'MPI_FILE_WRITE_ALL_END')
      call check_count(st, n1, 'MPI_FILE_WRITE_ALL_END')
      call MPI_FILE_WRITE_AT_ALL_BEGIN(fh, off, buf(n1 + 1), n - n1, MPI_REAL, ierr)
      call check(ierr, 'MPI_FILE_WRITE_AT_ALL_BEGIN')
      call MPI_FILE_WRITE_AT_ALL_END(fh, buf(n1 + 1), st, ierr)
      call check(ierr, 'MPI_FILE_WRITE_AT_ALL_END')
      call check_count(st, n - n1, 'MPI_FILE_WRITE_AT_ALL_END')
      call MPI_FILE_SEEK(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
      call check(ierr, 'MPI_FILE_SEEK')
      rbuf = -1.0
      call MPI_FILE_READ_ALL_BEGIN(fh, rbuf, n, MPI_REAL, ierr)
      call check(ierr, 'MPI_FILE_READ_ALL_BEGIN')
      call MPI_FILE_READ_ALL_END(fh, rbuf, st, ierr)
      call check(ierr, 'MPI_FILE_READ_ALL_END')
      call check_count(st, n, 'MPI_FILE_READ_ALL_END')
      call check_values(rbuf, n, 0, g, 'MPI_FILE_READ_ALL_END')
      rbuf = -1.0
      call MPI_FILE_READ_AT_ALL_BEGIN(fh, off, rbuf, n - n1, MPI_REAL, ierr)
      call check(ierr, 'MPI_FILE_READ_AT_ALL_BEGIN')
      call MPI_FILE_READ_AT_ALL_END(fh, rbuf, st, ierr)
      call check(ierr, 'MPI_FILE_READ_AT_ALL_END')
      call check_count(st, n - n1, 'MPI_FILE_READ_AT_ALL_END')
      call check_values(rbuf, n - n1, n1, g, 'MPI_FILE_READ_AT_ALL_END')
    end if
    call MPI_FILE_CLOSE(fh, ierr)
    call check(ierr, 'MPI_FILE_CLOSE')
    if (fh /= MPI_FILE_NULL) call fail('MPI_FILE_CLOSE left the handle not MPI_FILE_NULL')
  else
    call fail('unknown --mode '//trim(mode))
  end if
  call MPI_TYPE_FREE(ft, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)

  ! rank 0: the whole file by stream I/O
  if (rank == 0) then
    call file_msg(trim(path), int(disp, i8), nx, arg)
    if (arg /= '') call fail(trim(arg))
    write (*, '(a,a,a,a,a,i0,a,i0,a,i0,a,i0,a)') 'io_fortran: OK (', trim(mode), ', ', &
      trim(ftype), ', nx ', nx, ', bx ', bx, ', disp ', disp, ', ', nproc, ' ranks)'
  end if
  call MPI_FINALIZE(ierr)

contains

  ! The filetype of this rank's blocks: extent nx REALs from 0.
  integer function make_filetype() result(t)
    integer :: gsize(1), distrib(1), darg(1), psize(1), vec, st2, types(2), lens(2)
    integer(kind=MPI_ADDRESS_KIND) :: displs(2), lb, extent
    integer(i8) :: nfull, tail, last
    if (trim(ftype) == 'darray') then
      gsize(1) = int(nx)
      distrib(1) = MPI_DISTRIBUTE_CYCLIC
      darg(1) = int(bx)
      psize(1) = nproc
      call MPI_TYPE_CREATE_DARRAY(nproc, rank, 1, gsize, distrib, darg, psize, &
                                  MPI_ORDER_FORTRAN, MPI_REAL, t, ierr)
      call check(ierr, 'MPI_TYPE_CREATE_DARRAY')
    else if (trim(ftype) == 'vector') then
      ! the full blocks one vector from the first; a partial block can only
      ! be the last of all
      nfull = 0
      tail = 0
      last = -1
      do b = rank, nblocks - 1, nproc
        if (min(bx, nx - b * bx) == bx) then
          nfull = nfull + 1
        else
          tail = nx - b * bx
          last = b
        end if
      end do
      call MPI_TYPE_VECTOR(int(nfull), int(bx), int(bx) * nproc, MPI_REAL, vec, ierr)
      call check(ierr, 'MPI_TYPE_VECTOR')
      types = [vec, MPI_REAL]
      lens = [1, int(tail)]
      displs(1) = 4 * rank * bx
      displs(2) = 4 * max(last, 0_i8) * bx
      call MPI_TYPE_CREATE_STRUCT(2, lens, displs, types, st2, ierr)
      call check(ierr, 'MPI_TYPE_CREATE_STRUCT')
      lb = 0
      extent = 4 * nx
      call MPI_TYPE_CREATE_RESIZED(st2, lb, extent, t, ierr)
      call check(ierr, 'MPI_TYPE_CREATE_RESIZED')
      call MPI_TYPE_FREE(vec, ierr)
      call MPI_TYPE_FREE(st2, ierr)
    else
      call fail('unknown --type '//trim(ftype))
    end if
    call MPI_TYPE_COMMIT(t, ierr)
    call check(ierr, 'MPI_TYPE_COMMIT')
  end function make_filetype
end program io_fortran
