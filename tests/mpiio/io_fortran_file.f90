! io_fortran_file.f90 -- what io_fortran (`use mpi`, mpif.h) and
! io_fortran_f08 (`use mpi_f08`) share without MPI: their command line, a
! rank's elements of the block-cyclic vector and the value of each, the C
! reports of where MPI_File_open resolves (io_fortran_where.c), and their
! checks -- a rank's elements as read back, and the whole file by Fortran
! stream I/O (independent of MPI-IO and of any interposer). Each returns
! an empty message, or what is wrong; the programs stop the job on a
! message, through their own MPI module.
module io_fortran_file
  implicit none
  private
  public :: i8, val, args_msg, rank_elements, values_msg, file_msg
  public :: io_fortran_where, io_fortran_f08_where
  integer, parameter :: i8 = selected_int_kind(18)
  ! io_fortran_where.c: rank 0 prints where the program's MPI_File_open
  ! resolves (the line tests/mpiio/compare.sh checks)
  interface
    subroutine io_fortran_where(rank) bind(C, name='io_fortran_where')
      use, intrinsic :: iso_c_binding, only: c_int
      integer(c_int), value :: rank
    end subroutine io_fortran_where
    subroutine io_fortran_f08_where(rank) bind(C, name='io_fortran_f08_where')
      use, intrinsic :: iso_c_binding, only: c_int
      integer(c_int), value :: rank
    end subroutine io_fortran_f08_where
  end interface
contains
  ! The value of global element g (0-based): an integer below 2**24, exact
  ! as a REAL.
  real function val(g)
    integer(i8), intent(in) :: g
    val = real(mod(g * 7919_i8 + 13_i8, 16777213_i8) + 1_i8)
  end function val

  ! The command line: FILE [--nx N] [--bx B] [--disp BYTES] [--mode M]
  ! [--type T]; by default nx 10007, bx 16, disp 0, mode all, type darray.
  subroutine args_msg(path, nx, bx, disp, mode, ftype, msg)
    character(len=*), intent(out) :: path, msg
    integer(i8), intent(out) :: nx, bx, disp
    character(len=*), intent(out) :: mode, ftype
    character(len=4096) :: arg, v
    integer :: i
    nx = 10007
    bx = 16
    disp = 0
    mode = 'all'
    ftype = 'darray'
    msg = ''
    if (command_argument_count() < 1) then
      msg = 'usage'
      return
    end if
    call get_command_argument(1, path)
    i = 2
    do while (i <= command_argument_count() .and. msg == '')
      call get_command_argument(i, arg)
      call get_command_argument(i + 1, v)
      select case (trim(arg))
      case ('--nx')
        read (v, *) nx
      case ('--bx')
        read (v, *) bx
      case ('--disp')
        read (v, *) disp
      case ('--mode')
        mode = v
      case ('--type')
        ftype = v
      case default
        msg = 'unknown argument '//trim(arg)
      end select
      i = i + 2
    end do
    if (msg == '' .and. (nx < 1 .or. bx < 1 .or. disp < 0)) msg = 'bad --nx, --bx or --disp'
  end subroutine args_msg

  ! The global indices of rank's elements of nx, blocks of bx dealt
  ! round-robin over nproc ranks (blocks rank, rank + nproc, ...), in
  ! order: g(1:n) (allocated with one spare, so never empty).
  subroutine rank_elements(nx, bx, rank, nproc, g, n)
    integer(i8), intent(in) :: nx, bx
    integer, intent(in) :: rank, nproc
    integer(i8), allocatable, intent(out) :: g(:)
    integer, intent(out) :: n
    integer(i8) :: nblocks, b, e
    nblocks = (nx + bx - 1) / bx
    n = 0
    do b = rank, nblocks - 1, nproc
      n = n + int(min(bx, nx - b * bx))
    end do
    allocate (g(n + 1))
    n = 0
    do b = rank, nblocks - 1, nproc
      do e = b * bx, min((b + 1) * bx, nx) - 1
        n = n + 1
        g(n) = e
      end do
    end do
  end subroutine rank_elements

  ! got(1:n) against the elements g(first + 1 : first + n) (global
  ! indices; first is the 0-based local index of got(1)).
  subroutine values_msg(got, n, first, g, msg)
    integer, intent(in) :: n, first
    real, intent(in) :: got(*)
    integer(i8), intent(in) :: g(*)
    character(len=*), intent(out) :: msg
    integer :: i
    msg = ''
    do i = 1, n
      if (got(i) /= val(g(first + i))) then
        write (msg, '(a,i0,a,i0,a,f12.1,a,f12.1)') ' local element ', first + i - 1, &
          ' (global ', g(first + i), '): ', got(i), ', expected ', val(g(first + i))
        return
      end if
    end do
  end subroutine values_msg

  ! The file at path: disp zero bytes, then the nx elements, nothing more.
  subroutine file_msg(path, disp, nx, msg)
    character(len=*), intent(in) :: path
    integer(i8), intent(in) :: disp, nx
    character(len=*), intent(out) :: msg
    integer :: u, ios
    integer(i8) :: fsize, e
    real, allocatable :: whole(:)
    character(len=1), allocatable :: head(:)
    msg = ''
    open (newunit=u, file=path, access='stream', form='unformatted', status='old', &
          action='read', iostat=ios)
    if (ios /= 0) then
      msg = 'cannot open '//path//' with Fortran I/O'
      return
    end if
    inquire (unit=u, size=fsize)
    allocate (head(max(disp, 1_i8)), whole(nx))
    if (fsize /= disp + 4 * nx) then
      msg = 'the file''s size is wrong'
    else if (disp > 0) then
      read (u, pos=1, iostat=ios) head(1:disp)
      if (ios /= 0) then
        msg = 'cannot read the bytes before disp'
      else if (any(head(1:disp) /= achar(0))) then
        msg = 'bytes before disp written'
      end if
    end if
    if (msg == '') then
      read (u, pos=disp + 1, iostat=ios) whole
      if (ios /= 0) msg = 'cannot read the vector'
    end if
    close (u)
    do e = 0, nx - 1
      if (msg /= '') exit
      if (whole(e + 1) /= val(e)) write (msg, '(a,i0,a,f12.1,a,f12.1)') 'file element ', &
        e, ': ', whole(e + 1), ', expected ', val(e)
    end do
  end subroutine file_msg
end module io_fortran_file
